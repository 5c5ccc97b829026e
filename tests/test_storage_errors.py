"""Storage that cannot be reached is named, never a library's exception from deep inside it (issue 38's review).

Missing credentials (botocore's NoCredentialsError), an option the filesystem's session refuses (a TypeError from
aiobotocore) and an endpoint nothing listens on (EndpointConnectionError) came out of ``save``, ``load``,
``from_trec`` and the commands as raw exceptions; the command line called them internal errors. Each is now an
InvalidParameterError naming the URL and ``storage_options`` / ``--storage-option``. A ``Path`` made of a URL
(pathlib collapsed its ``//``) is named as such by save, load and dask.load.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evalframe import EvaluationResult, InvalidParameterError
from evalframe.present import cli

from .fixtures import hand_result

pytest.importorskip("s3fs")

REACH = r"^cannot reach s3://{bucket}/res \({error}: .*\); check the storage options \(storage_options= in the API, " \
        r"--storage-option KEY=VALUE on the command line"


def _no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/evalframe-credentials")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent/evalframe-config")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


def test_an_option_the_filesystem_refuses_is_named_by_save_load_and_from_trec(s3):
    options = {**s3.storage_options, "evalframe_no_such_option": 1}
    pattern = REACH.format(bucket=s3.name, error="TypeError")
    with pytest.raises(InvalidParameterError, match=pattern) as caught:
        hand_result().save(f"{s3.url}/res", storage_options=options, progress=False)
    assert caught.value.parameter == "storage_options"
    with pytest.raises(InvalidParameterError, match=pattern):
        EvaluationResult.load(f"{s3.url}/res", storage_options=options, progress=False)
    with pytest.raises(InvalidParameterError, match=r"^cannot reach s3://.*/res \(TypeError: .*evalframe_no_such_option"):
        EvaluationResult.from_trec(f"{s3.url}/res", {"q1": {"d1": 1}}, storage_options=options, progress=False)
    assert s3.keys() == []  # nothing was written


def test_missing_credentials_are_named_in_the_api_and_on_the_command_line(s3, monkeypatch, capsys):
    hand_result().save(f"{s3.url}/res", storage_options=s3.storage_options, progress=False)
    _no_credentials(monkeypatch)
    bare = {"endpoint_url": s3.endpoint}
    with pytest.raises(InvalidParameterError, match=REACH.format(bucket=s3.name, error="NoCredentialsError")):
        EvaluationResult.load(f"{s3.url}/res", storage_options=bare, progress=False)
    assert cli.main(["metrics", f"{s3.url}/res", "--storage-option", f"endpoint_url={s3.endpoint}"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"error: cannot reach s3://{s3.name}/res (NoCredentialsError: Unable to locate "
                              "credentials); check the storage options"), err
    assert "internal error" not in err[-1]


@pytest.mark.stress  # botocore retries a refused connection for about 5 s
def test_an_endpoint_nothing_listens_on_is_named(s3):
    options = {**s3.storage_options, "endpoint_url": "http://127.0.0.1:1"}
    with pytest.raises(InvalidParameterError, match=REACH.format(bucket=s3.name, error="EndpointConnectionError")):
        EvaluationResult.load(f"{s3.url}/res", storage_options=options, progress=False)


@pytest.mark.parametrize("call", ["save", "load", "dask.load"])
def test_a_path_made_of_a_url_is_named_as_one_by_the_folder_surfaces(call, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = Path("s3://bucket/results")  # pathlib made it s3:/bucket/results
    name = "out_dir" if call == "save" else "load_dir"
    with pytest.raises(InvalidParameterError, match=rf"^{name} is 's3:/bucket/results', the URL 's3://bucket/results' "
                                                    r"whose '//' pathlib collapsed; pass the URL as a str"):
        if call == "save":
            hand_result().save(path, progress=False)
        elif call == "load":
            EvaluationResult.load(path, progress=False)
        else:
            pytest.importorskip("distributed")
            from evalframe.dask import load

            load(path)
    assert list(tmp_path.iterdir()) == []


def test_a_connection_lost_in_the_middle_of_a_read_is_named(s3, monkeypatch, capsys):
    """The storage answered the open (its HEAD) and then dropped: the read of the file object is named as the
    filesystem's calls are, in the API and on the command line (it was botocore's EndpointConnectionError, which the
    command line called an internal error)."""
    import botocore.exceptions
    import s3fs

    run, qrels = f"{s3.name}/run.txt", f"{s3.name}/qrels.txt"
    s3.fs.pipe({run: b"q1 Q0 d1 1 2.0 r\n", qrels: b"q1 0 d1 1\n"})

    def dropped(self: object, *args: object, **kwargs: object) -> bytes:
        raise botocore.exceptions.EndpointConnectionError(endpoint_url=s3.endpoint)

    monkeypatch.setattr(s3fs.core.S3File, "_fetch_range", dropped)
    with pytest.raises(InvalidParameterError, match=rf"^cannot reach s3://{s3.name}/run.txt \(EndpointConnectionError"):
        EvaluationResult.from_trec(f"s3://{run}", {"q1": {"d1": 1}}, storage_options=s3.storage_options,
                                   progress=False)
    options = [f"--storage-option={key}={value}" for key, value in s3.storage_options.items()]
    assert cli.main(["trec", f"s3://{run}", f"s3://{qrels}", *options]) == 1
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith(f"error: cannot reach s3://{s3.name}/run.txt (EndpointConnectionError"), last
