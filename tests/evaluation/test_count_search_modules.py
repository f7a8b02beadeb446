"""scripts/count_search_modules.py: the modules one warm index-path search executes."""

from __future__ import annotations

from pathlib import Path

from count_search_modules import count_modules, sync_sample


def test_one_index_search_is_counted_module_by_module(tmp_path: Path) -> None:
    sync_sample(tmp_path, "sample")
    counted = count_modules(tmp_path, "sample", "budgte reviw")
    assert counted.answered_by == "index"
    assert counted.results > 0
    modules = set(counted.modules)
    # The service's door and the text engine's scorer run; nothing outside opindex counts.
    assert "opindex.service.facade" in modules
    assert all(name.startswith("opindex.") for name in modules)
    assert not any(name.startswith(("opindex.sync.runner", "opindex.live")) for name in modules)
    assert len(modules) > 10
    assert counted.lines > 20 * len(modules)
