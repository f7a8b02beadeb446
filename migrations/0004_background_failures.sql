-- Failures of a server's background tasks for this tenant ('webhooks': a re-fetch after a
-- delivery; 'verification': the hourly index re-read; 'sync': a daemon run that crashed
-- before it was recorded as a run): how often, when last and the last error
-- ("<ErrorType>: <message>"). A later success of the same task removes its row.
CREATE TABLE background_failures (
    task       TEXT    PRIMARY KEY,
    count      INTEGER NOT NULL CHECK (count >= 1),
    last_at    TEXT    NOT NULL,
    last_error TEXT    NOT NULL
) WITHOUT ROWID;
