"""Where a path points: a local file or folder, or an address on a filesystem fsspec reaches (docs/storage.md).

Every entry point that takes a path takes a URL too (``s3://bucket/results``, ``gs://``, ``az://``, ``memory://x``,
``file:///tmp/x``), resolved once here by :func:`locate`: a local path (``file://`` included) is a
:class:`pathlib.Path`, anything else a :class:`Remote` holding the filesystem and the path on it. A URL whose
protocol fsspec does not know, or whose filesystem's package is not installed, is refused naming the package to
install; it is never taken for a local path. ``storage_options`` (``--storage-option KEY=VALUE`` on the command
line, :func:`parse_storage_option`) go to the filesystem as its keyword arguments; without them each filesystem
reads its usual environment (``AWS_*`` for s3fs, ``GOOGLE_APPLICATION_CREDENTIALS`` for gcsfs, ...).

fsspec is imported only when a URL is met (extra ``evalframe[cloud]``: fsspec and s3fs).
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import EvalframeError, InvalidParameterError, LoadError, SaveError

__all__ = ["Remote", "Location", "is_url", "locate", "check_storage_options", "parse_storage_option", "merge_storage_options",
           "url_problem", "parameter_of", "URL_PROTOCOLS", "CLOUD_INSTALL", "read_bytes", "open_binary", "write_bytes",
           "is_file", "is_dir", "exists", "suffix_of", "open_bytes", "open_text", "read_text", "remote_or_value", "UrlText",
           "Reached", "ReachedFile"]

def parameter_of(name: str) -> str:
    """The parameter a check's ``name`` is about: its leading identifier (``node`` of ``"node (run 1)"``).

    Examples
    --------
    >>> parameter_of("n (worst queries per node)")
    'n'
    """
    match = re.match(r"[A-Za-z_]\w*", name)
    return match.group(0) if match else name


#: The protocols of fsspec's usual filesystems: a path whose first part is one of these and a colon (``s3:``) is a URL
#: whose ``//`` pathlib collapsed (``Path("s3://bucket/x")`` is ``s3:/bucket/x``), not a folder the user meant.
URL_PROTOCOLS = frozenset({"file", "memory", "s3", "s3a", "gs", "gcs", "az", "abfs", "abfss", "adl", "http", "https",
                           "hf", "hdfs", "webhdfs", "sftp", "ssh", "ftp", "github", "zip", "tar", "dbfs", "oci",
                           "oss", "r2", "wasb", "wasbs", "lakefs"})


def url_problem(value: object) -> str | None:
    """What to say of a URL given where a local path is read (``s3://bucket/results``, ``memory://x``), or None for any
    other value.

    ``pathlib`` makes a URL a local path (``Path("s3://bucket/results")`` is ``s3:/bucket/results``): saved as it is,
    it wrote a local folder named ``s3:``. Every entry point resolves a path with :func:`locate`, which reads a URL
    given as a str and refuses one whose ``//`` pathlib collapsed with this message; what takes only local paths
    (:func:`evalframe._validation.check_path`) refuses any URL with it. A path whose first part is a known protocol
    and a colon (``Path("memory://x")`` is already ``memory:/x``) is such a URL: a folder of that name is written
    ``./memory:/x``.

    Examples
    --------
    >>> url_problem("s3://bucket/results")
    "must be a local path here (this parameter takes no URL); got 's3://bucket/results'"
    >>> print(url_problem(Path("s3://bucket/results")))  # pathlib collapsed the '//'
    is 's3:/bucket/results', the URL 's3://bucket/results' whose '//' pathlib collapsed; pass the URL as a str (a
    local folder of that name: './s3:/bucket/results')
    >>> url_problem("results/run1") is None, url_problem("./memory:/x") is None, url_problem("x:y") is None
    (True, True, True)
    """
    text = os.fspath(value) if isinstance(value, os.PathLike) else value
    if not isinstance(text, str):
        return None
    if "://" in text:
        return f"must be a local path here (this parameter takes no URL); got {text!r}"
    first, slash, rest = text.partition("/")
    if first.endswith(":") and first[:-1].lower() in URL_PROTOCOLS and slash:
        return (f"is {text!r}, the URL {first + '//' + rest!r} whose '//' pathlib collapsed; pass the URL as a str (a "
                f"local folder of that name: {'./' + text!r})")
    return None


#: How to install what reads URLs.
CLOUD_INSTALL = "pip install 'evalframe[cloud]'"

#: The package each usual protocol's filesystem lives in (fsspec names the class; this names what to pip install).
_PACKAGES = {"s3": "s3fs", "s3a": "s3fs", "gs": "gcsfs", "gcs": "gcsfs", "az": "adlfs", "abfs": "adlfs",
             "abfss": "adlfs", "adl": "adlfs", "hf": "huggingface_hub", "http": "aiohttp", "https": "aiohttp",
             "sftp": "paramiko", "ssh": "paramiko", "oci": "ocifs", "oss": "ossfs", "dbfs": "requests",
             "webhdfs": "requests", "lakefs": "lakefs-spec", "wasb": "adlfs", "wasbs": "adlfs"}


class Remote:
    """An address on a filesystem fsspec reaches: the filesystem, the path on it, and the URL as messages show it.

    Parameters
    ----------
    fs : fsspec.AbstractFileSystem
        The filesystem (made once per protocol and storage options; fsspec keeps its instances).
    path : str
        The path on ``fs``, without the protocol (``bucket/results`` for ``s3://bucket/results``).
    url : str
        The URL (``protocol://path``): what every message names.
    storage_options : dict
        The options ``fs`` was made with, handed to whatever opens the address elsewhere (a Dask worker).

    Examples
    --------
    >>> where = locate("memory://evalframe-doc/out", name="out_dir")
    >>> where.url, where.name, (where / "evalframe.json").url, where.parent.url
    ('memory://evalframe-doc/out', 'out', 'memory://evalframe-doc/out/evalframe.json', 'memory://evalframe-doc')
    """

    __slots__ = ("fs", "path", "url", "storage_options")

    def __init__(self, fs: Any, path: str, url: str, storage_options: Mapping[str, Any] | None = None) -> None:
        self.fs, self.path, self.url = fs, path, url
        self.storage_options = dict(storage_options or {})

    def __str__(self) -> str:
        return self.url

    def __repr__(self) -> str:
        return f"Remote({self.url!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Remote) and (self.url, self.storage_options) == (other.url, other.storage_options)

    def __hash__(self) -> int:
        return hash(self.url)

    @property
    def protocol(self) -> str:
        """The URL's protocol (``s3``, ``memory``, ...)."""
        return self.url.split("://", 1)[0]

    @property
    def name(self) -> str:
        """The last part of the path (a file's or a folder's name)."""
        return posixpath.basename(self.path.rstrip("/"))

    @property
    def parent(self) -> Remote:
        """The folder (prefix) holding this address."""
        path = posixpath.dirname(self.path.rstrip("/"))
        url = self.url.rstrip("/").rsplit("/", 1)[0]
        return Remote(self.fs, path, url, self.storage_options)

    def __truediv__(self, name: str) -> Remote:
        """The address ``name`` inside this one (``name`` may hold ``/``)."""
        name = name.strip("/")
        return Remote(self.fs, f"{self.path.rstrip('/')}/{name}", f"{self.url.rstrip('/')}/{name}", self.storage_options)


#: What every path parameter resolves to.
Location = Path | Remote


def _text(value: object) -> str | None:
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    return value if isinstance(value, str) else None


def is_url(value: object) -> bool:
    """Whether ``value`` (a str or os.PathLike) is a URL: ``protocol://...`` with a protocol of letters, digits, ``+``,
    ``-`` or ``.`` (a Windows drive letter ``C://`` is not one).

    Examples
    --------
    >>> is_url("s3://bucket/x"), is_url("memory://x"), is_url("results/run1"), is_url("./s3:/x"), is_url(3)
    (True, True, False, False, False)
    """
    text = _text(value)
    if text is None or "://" not in text:
        return False
    protocol = text.split("://", 1)[0]
    return len(protocol) > 1 and protocol[0].isalpha() and all(c.isalnum() or c in "+-." for c in protocol)


def check_storage_options(value: object, *, name: str = "storage_options") -> dict[str, Any]:
    """``storage_options`` as a dict with str keys (None is no options).

    Examples
    --------
    >>> check_storage_options(None), check_storage_options({"anon": True})
    ({}, {'anon': True})
    >>> check_storage_options(["anon"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: storage_options must be a dict of the filesystem's options ...; got ['anon'].
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(key, str) and key for key in value):
        raise InvalidParameterError(f"{name} must be a dict of the filesystem's options (such as {{'anon': True}} or "
                                    f"{{'endpoint_url': 'http://127.0.0.1:9000'}}); got {value!r}.", parameter=name)
    return dict(value)


def parse_storage_option(text: str) -> tuple[str, Any]:
    """One ``--storage-option KEY=VALUE``: the value read as JSON where it is JSON (``true``, ``3``, ``{"a": 1}``),
    else as text; a dotted key nests (``client_kwargs.region_name=eu-west-1``).

    Examples
    --------
    >>> parse_storage_option("anon=true"), parse_storage_option("endpoint_url=http://127.0.0.1:9000")
    (('anon', True), ('endpoint_url', 'http://127.0.0.1:9000'))
    >>> parse_storage_option("client_kwargs.region_name=eu-west-1")
    ('client_kwargs', {'region_name': 'eu-west-1'})
    >>> parse_storage_option("anon")
    Traceback (most recent call last):
    ...
    ValueError: must be KEY=VALUE (such as anon=true or endpoint_url=http://127.0.0.1:9000); got 'anon'
    """
    key, equals, raw = text.partition("=")
    key = key.strip()
    if not equals or not key or any(not part for part in key.split(".")):
        raise ValueError(f"must be KEY=VALUE (such as anon=true or endpoint_url=http://127.0.0.1:9000); got {text!r}")
    try:
        value: Any = json.loads(raw)
    except ValueError:
        value = raw
    first, *rest = key.split(".")
    for part in reversed(rest):
        value = {part: value}
    return first, value


def merge_storage_options(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The options of several ``--storage-option`` flags, nested keys merged (``a.b=1 a.c=2`` is ``{'a': {'b': 1,
    'c': 2}}``).

    Examples
    --------
    >>> merge_storage_options([parse_storage_option("a.b=1"), parse_storage_option("a.c=x"), ("anon", True)])
    {'a': {'b': 1, 'c': 'x'}, 'anon': True}
    """
    merged: dict[str, Any] = {}

    def into(target: dict[str, Any], key: str, value: Any) -> None:
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            for inner, item in value.items():
                into(target[key], inner, item)
        else:
            target[key] = value

    for key, value in pairs:
        into(merged, key, value)
    return merged


def _install_line(protocol: str, error: BaseException | None) -> str:
    package = _PACKAGES.get(protocol.lower())
    if protocol.lower() in ("s3", "s3a"):
        return f"install s3fs ({CLOUD_INSTALL}, or pip install s3fs)"
    if package:
        return f"install {package} (pip install {package})"
    return f"install the package fsspec names for it ({error})" if error else "install its fsspec filesystem"


def _filesystem(protocol: str, options: dict[str, Any], url: str, name: str) -> Any:
    """fsspec's filesystem for ``protocol``, or a refusal naming what to install (or the bad option)."""
    try:
        import fsspec
    except ImportError:
        raise InvalidParameterError(f"{name} is the URL {url!r}; reading and writing URLs needs fsspec: "
                                    f"{CLOUD_INSTALL}.", parameter=name) from None
    try:
        cls = fsspec.get_filesystem_class(protocol)
    except ImportError as exc:
        raise InvalidParameterError(f"{name} is the URL {url!r}, and {protocol}:// needs a filesystem that is not "
                                    f"installed: {_install_line(protocol, exc)}.", parameter=name) from None
    except ValueError:
        known = ", ".join(sorted(p for p in fsspec.available_protocols() if len(p) > 1)[:30])
        raise InvalidParameterError(f"{name} is the URL {url!r}, whose protocol {protocol!r} no fsspec filesystem "
                                    f"reads (known: {known}, ...); check its spelling.", parameter=name) from None
    try:
        return cls(**options)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"storage_options {options!r} do not suit {protocol}:// ({type(exc).__name__}: "
                                    f"{exc}); pass the options {cls.__name__} takes.",
                                    parameter="storage_options") from None


def locate(value: object, *, name: str, storage_options: object = None) -> Path | Remote:
    """Where ``value`` points: a local :class:`~pathlib.Path`, or a :class:`Remote` for a URL.

    Parameters
    ----------
    value : str or os.PathLike
        A local path, or a URL (``s3://bucket/x``, ``memory://x``, ``file:///tmp/x``: the last is local).
    name : str
        The parameter as the caller typed it, for messages (``"out_dir"``, ``"runs[2]"``).
    storage_options : dict, optional
        The filesystem's options (credentials, ``endpoint_url``, ...); without them it reads its environment.

    Returns
    -------
    pathlib.Path or Remote

    Raises
    ------
    InvalidParameterError
        Not a str or path; an empty one or one with a NUL character; a URL whose protocol fsspec does not know or
        whose package is not installed (naming the install line); a ``Path`` made of a URL (pathlib collapsed its
        ``//``: pass the URL as a str).

    Examples
    --------
    >>> locate("results/run1", name="out_dir")
    PosixPath('results/run1')
    >>> locate("file:///tmp/run1", name="out_dir")
    PosixPath('/tmp/run1')
    >>> locate("memory://bucket/run1", name="out_dir")
    Remote('memory://bucket/run1')
    >>> locate("nosuch://bucket/run1", name="out_dir")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: out_dir is the URL 'nosuch://bucket/run1', whose protocol 'nosuch' ...
    """
    text = _text(value)
    if text is None or text == "":
        raise InvalidParameterError(f"{name} must be a path (a str or pathlib.Path) or a URL (such as "
                                    f"'s3://bucket/results'); got {value!r}.", parameter=parameter_of(name))
    if "\x00" in text:
        raise InvalidParameterError(f"{name} must be a path without a NUL character (no file system allows one); "
                                    f"got {text!r}. Remove the '\\x00'.", parameter=parameter_of(name))
    options = check_storage_options(storage_options)
    if not options and isinstance(value, UrlText):  # a URL of the command line: --storage-option's options
        options = dict(value.storage_options)
    if not is_url(text):
        problem = url_problem(text)  # Path("s3://b/x") is s3:/b/x: a URL pathlib collapsed, never a local folder
        if problem is not None:
            raise InvalidParameterError(f"{name} {problem}.", parameter=parameter_of(name))
        return Path(text)
    protocol = text.split("://", 1)[0].lower()
    if protocol in ("file", "local"):
        return Path(text.split("://", 1)[1] or "/")
    fs = _filesystem(protocol, options, text, parameter_of(name))
    path = fs._strip_protocol(text)
    if isinstance(path, list):  # fsspec's paths of a chained URL
        path = path[0]
    url = f"{protocol}://{text.split('://', 1)[1].rstrip('/')}"
    return Remote(Reached(fs, url), str(path).rstrip("/") or str(path), url, options)


#: The errors of a filesystem's own machinery (botocore's NoCredentialsError and EndpointConnectionError, aiohttp's,
#: a session refusing an unknown option): the call could not reach the storage. OSError (a missing object, a denied
#: one) keeps its meaning for the callers, which name the file.
def _unreached(error: BaseException) -> bool:
    if isinstance(error, ConnectionError):  # an OSError, but of the connection (aiohttp's connector errors)
        return True
    if isinstance(error, (OSError, EvalframeError)) or not isinstance(error, Exception):
        return False
    module = type(error).__module__.split(".", 1)[0]
    return module in ("botocore", "aiobotocore", "s3fs", "gcsfs", "adlfs", "azure", "aiohttp", "google", "fsspec",
                      "requests", "urllib3", "huggingface_hub") or isinstance(error, (TypeError, ConnectionError))


def _guarded(method: Any, url: str, *, opens: bool = False) -> Any:
    """``method`` whose failures to reach the storage are named (:class:`Reached`); a file it opens (``opens``) is
    guarded the same way, so a connection lost in the middle of a read is named too."""

    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            value = method(*args, **kwargs)
        except Exception as error:
            if not _unreached(error):
                raise
            raise InvalidParameterError(
                f"cannot reach {url} ({type(error).__name__}: {error}); check the storage options "
                "(storage_options= in the API, --storage-option KEY=VALUE on the command line: endpoint_url, key, "
                "secret, ...) and the filesystem's credentials in its usual environment (AWS_* or ~/.aws for "
                "s3://, GOOGLE_APPLICATION_CREDENTIALS for gs://, AZURE_STORAGE_* for az://).",
                parameter="storage_options") from None
        return ReachedFile(value, url) if opens else value

    return call


class ReachedFile:
    """A file opened on a :class:`Reached` filesystem: its methods name a failure to reach the storage as the
    filesystem's do; everything else is the file's."""

    def __init__(self, handle: Any, url: str) -> None:
        self.__dict__["_handle"], self.__dict__["_url"] = handle, url

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(self.__dict__["_handle"], name)
        return _guarded(value, self.__dict__["_url"]) if callable(value) and not isinstance(value, type) else value

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.__dict__["_handle"], name, value)

    def __enter__(self) -> ReachedFile:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __iter__(self) -> Any:
        return iter(self.__dict__["_handle"])

    def __reduce__(self) -> tuple[Any, ...]:
        return (ReachedFile, (self.__dict__["_handle"], self.__dict__["_url"]))


class Reached:
    """A filesystem whose calls turn a failure to reach the storage (no credentials, no endpoint, an option the
    filesystem's session refuses) into an :class:`~evalframe.errors.InvalidParameterError` naming the URL and
    ``storage_options``, instead of the library's own exception from deep inside it.

    Every attribute is the filesystem's; a method is wrapped. Errors of the files themselves (``FileNotFoundError``,
    ``PermissionError``, any OSError) pass through, for the callers to name the file.
    """

    def __init__(self, fs: Any, url: str) -> None:
        self.__dict__["_fs"], self.__dict__["_url"] = fs, url

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(self.__dict__["_fs"], name)
        if not callable(value) or isinstance(value, type):
            return value
        return _guarded(value, self.__dict__["_url"], opens=name == "open")

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.__dict__["_fs"], name, value)

    def __repr__(self) -> str:
        return f"Reached({self.__dict__['_fs']!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Reached, (self.__dict__["_fs"], self.__dict__["_url"]))


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__


def read_bytes(where: Remote, *, what: str = "file", max_bytes: int | None = None) -> bytes:
    """The whole object at ``where``, read in one request (an object replaced meanwhile is read old or new, whole).

    Raises :class:`~evalframe.errors.LoadError` naming the URL when it is missing, a folder (prefix), larger than
    ``max_bytes``, or cannot be read; ``what`` words it ("run file", "results folder's evalframe.json").

    Examples
    --------
    >>> where = locate("memory://evalframe-doc/read/x.txt", name="path")
    >>> write_bytes(where, b"q1 Q0 d1 1\\n")
    >>> read_bytes(where)
    b'q1 Q0 d1 1\\n'
    >>> read_bytes(where.parent / "missing.txt", what="qrels file")
    Traceback (most recent call last):
    ...
    evalframe.errors.LoadError: qrels file memory://evalframe-doc/read/missing.txt does not exist.
    """
    try:
        if max_bytes is not None:
            size = where.fs.size(where.path)
            if size is not None and size > max_bytes:
                raise LoadError(f"{what} {where.url} holds {size} bytes, more than the {max_bytes} it may hold.")
        return bytes(where.fs.cat_file(where.path))
    except FileNotFoundError:
        raise LoadError(f"{what} {where.url} does not exist.") from None
    except IsADirectoryError:
        raise LoadError(f"{what} {where.url} is a folder; give the file itself.") from None
    except OSError as exc:
        raise LoadError(f"{what} {where.url} cannot be read ({_reason(exc)}).") from None


def open_binary(where: Remote, *, what: str = "file") -> Any:
    """``where`` opened for reading as a buffered binary stream (for files read block by block).

    Raises :class:`~evalframe.errors.LoadError` naming the URL when it is missing or cannot be opened.

    Examples
    --------
    >>> where = locate("memory://evalframe-doc/open/run.txt", name="run")
    >>> write_bytes(where, b"q1 Q0 d1 1 2.0 r\\n")
    >>> with open_binary(where, what="run file") as handle:
    ...     handle.read(2)
    b'q1'
    """
    try:
        if where.fs.isdir(where.path):
            raise LoadError(f"{what} {where.url} is a folder; give the file itself.")
        return where.fs.open(where.path, "rb")
    except FileNotFoundError:
        raise LoadError(f"{what} {where.url} does not exist.") from None
    except OSError as exc:
        raise LoadError(f"{what} {where.url} cannot be opened ({_reason(exc)}).") from None


def write_bytes(where: Remote, data: bytes, *, what: str = "file") -> None:
    """Write ``data`` as the object at ``where`` in one request: on object storage a reader sees the old object or the
    new one whole, never a part (a PUT replaces an object atomically).

    Raises :class:`~evalframe.errors.SaveError` naming the URL when it cannot be written.
    """
    try:
        where.fs.pipe_file(where.path, data)
    except OSError as exc:
        raise SaveError(f"cannot write {what} {where.url} ({_reason(exc)}); the previous one, if any, is unchanged.") from None


# ------------------------------------------------------------------------------------------ a local Path or a Remote
# The readers of whole files (runs files, tables, JSON) and the writers of single files take either kind of Location;
# these helpers give both the same few operations, a local Path's behaviour unchanged.

def is_file(where: Path | Remote) -> bool:
    """Whether ``where`` is a file (an object, for a Remote); False when it cannot be asked.

    Examples
    --------
    >>> where = locate("memory://evalframe-doc/is-file/x.txt", name="path")
    >>> write_bytes(where, b"x")
    >>> is_file(where), is_file(where.parent), is_file(where.parent / "y.txt")
    (True, False, False)
    """
    if isinstance(where, Path):
        return where.is_file()
    try:
        return bool(where.fs.isfile(where.path))
    except OSError:
        return False


def is_dir(where: Path | Remote) -> bool:
    """Whether ``where`` is a folder (a prefix holding objects, for a Remote); False when it cannot be asked."""
    if isinstance(where, Path):
        return where.is_dir()
    try:
        return bool(where.fs.isdir(where.path))
    except OSError:
        return False


def exists(where: Path | Remote) -> bool:
    """Whether ``where`` exists (a file or a folder); False when it cannot be asked."""
    if isinstance(where, Path):
        return where.exists()
    try:
        return bool(where.fs.exists(where.path))
    except OSError:
        return False


def suffix_of(where: Path | Remote) -> str:
    """The name's suffix (``.jsonl``), as :attr:`pathlib.Path.suffix`.

    Examples
    --------
    >>> suffix_of(Path("a/b.jsonl")), suffix_of(locate("memory://evalframe-doc/b.json", name="path"))
    ('.jsonl', '.json')
    """
    return where.suffix if isinstance(where, Path) else Path(where.name).suffix


def open_bytes(where: Path | Remote, *, what: str = "file") -> Any:
    """``where`` opened for reading bytes (a local file as :meth:`pathlib.Path.open` opens it; a Remote by
    :func:`open_binary`, errors naming the URL)."""
    return where.open("rb") if isinstance(where, Path) else open_binary(where, what=what)


def open_text(where: Path | Remote, *, what: str = "file", newline: str | None = None) -> Any:
    """``where`` opened for reading UTF-8 text (a byte-order mark skipped), as ``open(..., encoding="utf-8-sig")``.

    Examples
    --------
    >>> where = locate("memory://evalframe-doc/open-text/x.txt", name="path")
    >>> write_bytes(where, "\\ufeffa\\nb\\n".encode())
    >>> with open_text(where) as handle:
    ...     handle.read()
    'a\\nb\\n'
    """
    if isinstance(where, Path):
        return where.open(encoding="utf-8-sig", newline=newline)
    import io

    return io.TextIOWrapper(open_binary(where, what=what), encoding="utf-8-sig", newline=newline)


def read_text(where: Path | Remote, *, what: str = "file") -> str:
    """The whole of ``where`` as UTF-8 text (a byte-order mark skipped; a UnicodeDecodeError as
    :meth:`pathlib.Path.read_text` raises it)."""
    if isinstance(where, Path):
        return where.read_text(encoding="utf-8-sig")
    return read_bytes(where, what=what).decode("utf-8-sig")


def remote_or_value(value: object, *, name: str, storage_options: object = None) -> object:
    """``value`` as a :class:`Remote` when it is a URL (located with ``storage_options``; one fsspec cannot read, or
    a ``Path`` whose ``//`` pathlib collapsed, refused naming ``name``); anything else as it is, for a reader that
    takes a local path, an object or a Remote.

    Examples
    --------
    >>> remote_or_value("memory://evalframe-doc/eval.jsonl", name="results"), remote_or_value("eval.jsonl", name="results")
    (Remote('memory://evalframe-doc/eval.jsonl'), 'eval.jsonl')
    """
    check_storage_options(storage_options)
    if isinstance(value, (str, os.PathLike)) and not isinstance(value, bytes) and (
            url_problem(value) is not None or storage_options):
        where = locate(value, name=name, storage_options=storage_options)
        if isinstance(where, Remote):
            return where
    return value


class UrlText(str):
    """A URL given on the command line (``evalframe metrics s3://bucket/results``): the text itself, which every reader
    and writer takes as a URL, with the options of the command's ``--storage-option`` flags (set once they are parsed;
    :func:`locate` uses them when the call gives none), and the few questions a command asks of a path (``is_file``,
    ``is_dir``, ``exists``, ``name``, ``/``) answered on its filesystem.

    Examples
    --------
    >>> url = UrlText("memory://evalframe-doc/cli/run.txt")
    >>> write_bytes(locate(url, name="RUN"), b"q1 Q0 d1 1 2.0 r\\n")
    >>> url.is_file(), url.parent.is_dir(), url.name, str(url.parent / "qrels.txt")
    (True, True, 'run.txt', 'memory://evalframe-doc/cli/qrels.txt')
    """

    storage_options: dict[str, Any] = {}

    def with_options(self, storage_options: Mapping[str, Any]) -> UrlText:
        """The same URL with ``storage_options``."""
        url = UrlText(self)
        url.storage_options = dict(storage_options)
        return url

    @property
    def where(self) -> Remote:
        where = locate(str(self), name="path", storage_options=self.storage_options)
        assert isinstance(where, Remote)
        return where

    def is_file(self) -> bool:
        return is_file(self.where)

    def is_dir(self) -> bool:
        return is_dir(self.where)

    def exists(self) -> bool:
        return exists(self.where)

    @property
    def name(self) -> str:
        return posixpath.basename(self.rstrip("/"))

    @property
    def suffix(self) -> str:
        return Path(self.name).suffix

    @property
    def parent(self) -> UrlText:
        return UrlText(self.rstrip("/").rsplit("/", 1)[0]).with_options(self.storage_options)

    def resolve(self) -> UrlText:
        return self

    def __truediv__(self, name: str) -> UrlText:
        return UrlText(f"{self.rstrip('/')}/{name.strip('/')}").with_options(self.storage_options)
