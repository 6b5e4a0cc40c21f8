"""Where the tests find things: the module on sys.path (PYTHONPATH, e.g. an install prefix's
lib/python3/dist-packages), the warpsearch tool (WARPSEARCH_BINARY, else the PATH) for comparisons, and
the bundled data."""
import os
import pathlib
import shutil

import pytest

SOURCE = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def data():
    return SOURCE / "data"


@pytest.fixture(scope="session")
def tool():
    binary = os.environ.get("WARPSEARCH_BINARY") or shutil.which("warpsearch")
    if not binary:
        pytest.skip("no warpsearch tool to compare with (set WARPSEARCH_BINARY)")
    return binary


@pytest.fixture(scope="session")
def protein_db(tmp_path_factory, data):
    import warpsearch

    path = tmp_path_factory.mktemp("db") / "proteins"
    warpsearch.makedb(str(data / "uniprot_sample.fa"), str(path))
    return path
