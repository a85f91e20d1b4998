"""`SCORELEDGER_ARCHIVE_URL` picks the archive adapter in the composition root (unset: none)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from services.archive.adapters.directory import DirectoryArchive
from services.bootstrap import open_archive
from services.platform.settings import ServiceSettings


async def test_unset_means_no_archive() -> None:
    assert await open_archive(ServiceSettings(archive_url=None)) is None
    assert ServiceSettings(archive_url="  ").archive_url is None  # type: ignore[arg-type]


async def test_a_file_url_is_a_directory_archive(tmp_path: Path) -> None:
    archive = await open_archive(ServiceSettings(archive_url=f"file://{tmp_path}/a%20b"))  # type: ignore[arg-type]
    assert isinstance(archive, DirectoryArchive)
    assert archive.root == tmp_path / "a b"


@pytest.mark.parametrize("url", ["redis://x", "file://relative/dir", "s3://bucket", "/tmp/x"])
def test_other_urls_are_refused_naming_the_field(url: str) -> None:
    with pytest.raises(ValidationError, match="archive_url"):
        ServiceSettings(archive_url=url)  # type: ignore[arg-type]


@pytest.mark.postgres
async def test_a_postgresql_url_opens_a_migrated_pool(postgres_url: str) -> None:
    from services.archive.adapters.postgres import PostgresArchive

    archive = await open_archive(ServiceSettings(archive_url=postgres_url))  # type: ignore[arg-type]
    assert isinstance(archive, PostgresArchive)
    assert (await archive.list_games()).games == ()
    await archive.close()
