-- Progress of the sync engine beyond single runs: the checkpoint of an unfinished full
-- sync, what the last work-package manifest comparison found, and webhook deliveries.

-- A full sync into a fresh index generation commits in checkpoints. At most one exists;
-- it names the unpublished generation and how far it got, and is removed when that
-- generation is published (or abandoned).
CREATE TABLE full_sync_checkpoint (
    singleton     INTEGER PRIMARY KEY CHECK (singleton = 1),
    generation    TEXT    NOT NULL,
    run_kind      TEXT    NOT NULL CHECK (run_kind IN ('full', 'rebuild')),
    started_at    TEXT    NOT NULL,
    records_done  INTEGER NOT NULL CHECK (records_done >= 0),
    records_total INTEGER NOT NULL CHECK (records_total >= 0),
    checkpoints   INTEGER NOT NULL CHECK (checkpoints >= 0),
    updated_at    TEXT    NOT NULL
);

-- The records the checkpointed generation holds as of its last checkpoint commit.
CREATE TABLE checkpoint_records (
    kind         TEXT    NOT NULL,
    id           INTEGER NOT NULL,
    updated_at   TEXT,
    content_hash TEXT,
    PRIMARY KEY (kind, id)
) WITHOUT ROWID;

-- The last manifest comparison of a successful run (work packages): listed, and how
-- many were new, changed, removed; server_time is the server's Date header.
CREATE TABLE manifest_summary (
    singleton   INTEGER PRIMARY KEY CHECK (singleton = 1),
    run_id      INTEGER NOT NULL,
    finished_at TEXT    NOT NULL,
    listed      INTEGER NOT NULL CHECK (listed >= 0),
    added       INTEGER NOT NULL CHECK (added >= 0),
    changed     INTEGER NOT NULL CHECK (changed >= 0),
    removed     INTEGER NOT NULL CHECK (removed >= 0),
    server_time TEXT
);

-- Webhook deliveries by outcome: 'accepted', 'refused' (bad or missing signature,
-- unreadable body), 'ignored' (an event that names nothing to re-fetch).
CREATE TABLE webhook_counts (
    outcome TEXT    PRIMARY KEY,
    count   INTEGER NOT NULL CHECK (count >= 0),
    last_at TEXT    NOT NULL
) WITHOUT ROWID;
