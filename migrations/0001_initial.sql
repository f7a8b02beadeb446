-- The state of one tenant: sync runs, change cursors, known records, wiki discovery,
-- server capabilities and the pointer to the live index. Timestamps are ISO 8601 UTC text
-- ("2024-05-01T12:00:00.000000+00:00"), so they sort as text. JSON columns are validated
-- by opindex.state before they are written.

-- One row per sync run; 'running' until it finishes. counts is a JSON object
-- {kind: {"upserted": n, "deleted": m}}; index_opstamp is the index commit the run made.
CREATE TABLE sync_runs (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    kind          TEXT    NOT NULL CHECK (kind IN ('full', 'incremental', 'rebuild')),
    started_at    TEXT    NOT NULL,
    finished_at   TEXT,
    outcome       TEXT    NOT NULL DEFAULT 'running'
                  CHECK (outcome IN ('running', 'succeeded', 'failed', 'interrupted')),
    counts        TEXT    NOT NULL DEFAULT '{}',
    requests      INTEGER NOT NULL DEFAULT 0 CHECK (requests >= 0),
    error         TEXT,
    index_opstamp INTEGER,
    pid           INTEGER,
    CHECK ((outcome = 'running') = (finished_at IS NULL))
);
CREATE INDEX sync_runs_by_outcome ON sync_runs (outcome, finished_at);

-- Per resource ("work_packages", "meetings", ...): the newest server updatedAt synced.
CREATE TABLE high_water_marks (
    resource   TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL
) WITHOUT ROWID;

-- Every record the live index holds, for deletion reconciliation and change detection.
-- updated_at is the server's; last_fetched_at is when its content was last read;
-- last_seen_at is when a listing last confirmed it still exists.
CREATE TABLE known_records (
    kind            TEXT    NOT NULL,
    id              INTEGER NOT NULL,
    updated_at      TEXT,
    content_hash    TEXT,
    last_seen_at    TEXT    NOT NULL,
    last_fetched_at TEXT    NOT NULL,
    PRIMARY KEY (kind, id)
) WITHOUT ROWID;
CREATE INDEX known_records_by_fetch ON known_records (kind, last_fetched_at);

-- Wiki pages cannot be listed, only probed by id: what the probing has covered so far.
CREATE TABLE wiki_discovery (
    singleton          INTEGER PRIMARY KEY CHECK (singleton = 1),
    highest_id_seen    INTEGER,
    last_full_probe_at TEXT,
    updated_at         TEXT NOT NULL
);

-- Inclusive, non-overlapping id ranges already probed, and when.
CREATE TABLE wiki_probed_ranges (
    first_id  INTEGER PRIMARY KEY,
    last_id   INTEGER NOT NULL CHECK (last_id >= first_id),
    probed_at TEXT    NOT NULL
);

-- What the server supports (JSON object), as detected at detected_at.
CREATE TABLE capabilities (
    singleton   INTEGER PRIMARY KEY CHECK (singleton = 1),
    data        TEXT NOT NULL,
    detected_at TEXT NOT NULL
);

-- Which index directory is live, its schema version, and the index commit (opstamp) that
-- this state describes. See opindex.state.store for the commit protocol.
CREATE TABLE index_pointer (
    singleton      INTEGER PRIMARY KEY CHECK (singleton = 1),
    directory      TEXT    NOT NULL,
    schema_version INTEGER NOT NULL,
    opstamp        INTEGER NOT NULL,
    committed_at   TEXT    NOT NULL,
    updated_at     TEXT    NOT NULL
);
