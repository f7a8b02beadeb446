-- Attachments are immutable: each file's text is extracted once, keyed by its id and
-- digest. One row per attachment the index holds: how its text was read (outcome
-- 'extracted' | 'truncated' | 'skipped' | 'failed' | 'deferred', the reason code of a
-- skip or failure), its detected format, its size and the time extraction took.
CREATE TABLE attachment_extractions (
    id           INTEGER PRIMARY KEY,
    digest       TEXT,
    outcome      TEXT    NOT NULL,
    reason       TEXT,
    format       TEXT    NOT NULL,
    bytes        INTEGER NOT NULL CHECK (bytes >= 0),
    seconds      REAL    NOT NULL CHECK (seconds >= 0),
    extracted_at TEXT    NOT NULL
);
