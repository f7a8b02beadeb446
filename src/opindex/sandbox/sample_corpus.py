"""The sample corpus shipped with opindex (used by the demo): generated bulk + curated stories."""

from __future__ import annotations

import copy
from importlib import resources
from pathlib import Path
from typing import Any

from opindex.sandbox import sample_curated as curated
from opindex.sandbox import sample_publications as publications
from opindex.sandbox.corpus_gen import CorpusSize, ascii_login, generate_corpus

SAMPLE_CORPUS = "sample_corpus.json"
SAMPLE_SIZE = CorpusSize(work_packages=180, wiki_pages=30, meetings=18, projects=4)
SAMPLE_SEED = 2026


def sample_corpus_path() -> Path:
    """The path of the sample corpus file shipped inside the package."""
    return Path(str(resources.files("opindex.sandbox") / "data" / SAMPLE_CORPUS))


def _tidy_generated(corpus: dict[str, Any]) -> None:
    """Keep the curated stories unambiguous: generated people are not called Müller and
    generated meetings do not talk about hiring."""
    for user in corpus["users"]:
        if "Müller" in user["name"]:
            user["name"] = user["name"].replace("Müller", "Moreau")
            old_login = user["login"]
            user["login"] = ascii_login(user["name"])
            user["email"] = f"{user['login']}@example.org"
            key = f"key-{old_login}"
            if key in corpus["api_keys"]:
                corpus["api_keys"][f"key-{user['login']}"] = corpus["api_keys"].pop(key)
    for meeting in corpus["meetings"]:
        if meeting["title"] == "Hiring committee":
            meeting["title"] = "Weekly sync"
        for item in meeting["agendaItems"]:
            if item["title"] == "Hiring plan":
                item["title"] = "Team health check"


def _replace_names(corpus: dict[str, Any]) -> None:
    """Generated text mentions people by name: follow the renames of ``_tidy_generated``."""
    for record in corpus["work_packages"]:
        record["description"] = record["description"].replace("Müller", "Moreau")
        for activity in record["activities"]:
            if activity.get("comment"):
                activity["comment"] = activity["comment"].replace("Müller", "Moreau")
            activity["details"] = [
                d.replace("Müller", "Moreau") for d in activity.get("details") or []
            ]
    for page in corpus["wiki_pages"]:
        page["text"] = page["text"].replace("Müller", "Moreau")
    for meeting in corpus["meetings"]:
        for item in meeting["agendaItems"]:
            item["notes"] = item["notes"].replace("Müller", "Moreau")
            for outcome in item["outcomes"]:
                outcome["notes"] = outcome["notes"].replace("Müller", "Moreau")


def build_sample_corpus() -> dict[str, Any]:
    """The sample corpus: a small generated tenant plus the curated story records."""
    corpus = generate_corpus(SAMPLE_SIZE, seed=SAMPLE_SEED)
    _tidy_generated(corpus)
    _replace_names(corpus)
    corpus["users"].extend(copy.deepcopy(curated.USERS))
    for user in curated.USERS:
        corpus["api_keys"][f"key-{user['login']}"] = user["id"]
    for project in corpus["projects"]:
        extra = curated.EXTRA_MEMBERS.get(project["id"], [])
        project["members"] = sorted({*project["members"], *extra})
    corpus["projects"].append(copy.deepcopy(curated.DESIGN_TEAM_PROJECT))
    corpus["work_packages"].extend(copy.deepcopy(curated.WORK_PACKAGES))
    corpus["wiki_pages"].extend(copy.deepcopy(curated.WIKI_PAGES))
    corpus["meetings"].extend(copy.deepcopy(curated.MEETINGS))
    for project in corpus["projects"]:
        explanation = publications.STATUS_EXPLANATIONS.get(project["id"])
        if explanation is not None:
            project["statusExplanation"] = explanation
    corpus["news"] = copy.deepcopy(publications.NEWS)
    corpus["documents"] = copy.deepcopy(publications.DOCUMENTS)
    corpus["versions"] = copy.deepcopy(publications.VERSIONS)
    corpus["posts"] = copy.deepcopy(publications.POSTS)
    corpus["attachments"] = copy.deepcopy(publications.ATTACHMENTS)
    corpus["stories"] = copy.deepcopy(curated.STORIES)
    return corpus
