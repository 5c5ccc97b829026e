"""``evalframe serve``: a local web viewer of a history store's runs, their trends, and comparisons of runs, folders
and source files (docs/viewer.md), on Starlette and uvicorn (the ``serve`` extra, ``pip install 'evalframe[serve]'``),
imported only when the command runs.

:mod:`.paging` pages a comparison's grid over its columns (numpy, no server needed); :mod:`.views` renders the HTML
shells (every user text escaped); :mod:`.app` is the read-only ASGI application and :mod:`.command` the command.
"""
