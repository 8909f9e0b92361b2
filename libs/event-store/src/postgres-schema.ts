/** The PostgreSQL event store's tables, its append function and the names they share with the adapter. */
export const EVENTS = 'burrow_events';
export const STORE = 'burrow_event_store';
const APPEND = 'burrow_append_events';
export const APPEND_BATCH = 'burrow_append_batch';
export const CHANNEL = 'burrow_events_appended';
/** advisory-lock class ids (any constants unlikely to be used by someone else: "BURR", "BURS") */
export const MIGRATION_LOCK = 0x42555252;
const APPEND_LOCK_CLASS = 0x42555253;
/** SQLSTATE raised by the append function on a wrong expected revision */
const WRONG_REVISION = 'BU001';
export const SCHEMA_VERSION = 1;

export const COLUMNS = `position, stream, revision, type, data, metadata, floor(extract(epoch FROM recorded_at) * 1000)::float8 AS recorded_ms`;

/**
 * Created (idempotently) at connect, under an advisory lock so that several processes starting
 * together do not race on CREATE. The append function is replaced each time, so a new version of
 * Burrow brings its own.
 */
export const MIGRATION = `
CREATE TABLE IF NOT EXISTS ${EVENTS} (
  position    bigint      PRIMARY KEY,
  stream      text        NOT NULL,
  revision    bigint      NOT NULL,
  type        text        NOT NULL,
  data        json        NOT NULL,
  metadata    json        NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (stream, revision)
);
CREATE TABLE IF NOT EXISTS ${STORE} (
  singleton      boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
  id             uuid        NOT NULL,
  schema_version integer     NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE OR REPLACE FUNCTION ${APPEND}(
  p_stream text, p_expected bigint, p_types text[], p_data text[], p_metadata text[], p_durable boolean
) RETURNS TABLE (last_revision bigint, last_position bigint) LANGUAGE plpgsql AS $fn$
DECLARE
  current_revision bigint;
  head bigint;
  n integer := cardinality(p_types);
BEGIN
  -- p_expected: -1 any, -2 no stream, -3 stream exists, else the exact revision
  IF NOT p_durable THEN
    -- the commit does not wait for the WAL flush; the next durable commit flushes it too
    PERFORM set_config('synchronous_commit', 'off', true);
  END IF;
  PERFORM pg_advisory_xact_lock((${APPEND_LOCK_CLASS}::bigint << 32) | '${EVENTS}'::regclass::oid::bigint);
  SELECT max(e.revision) INTO current_revision FROM ${EVENTS} e WHERE e.stream = p_stream;
  IF (p_expected = -1
      OR (p_expected = -2 AND current_revision IS NULL)
      OR (p_expected = -3 AND current_revision IS NOT NULL)
      OR (p_expected >= 0 AND current_revision = p_expected)) IS NOT TRUE THEN
    RAISE EXCEPTION 'wrong expected revision' USING ERRCODE = '${WRONG_REVISION}', DETAIL = coalesce(current_revision::text, 'no_stream');
  END IF;
  SELECT coalesce(max(e.position), 0) INTO head FROM ${EVENTS} e;
  INSERT INTO ${EVENTS} (position, stream, revision, type, data, metadata)
    SELECT head + i, p_stream, coalesce(current_revision, -1) + i, p_types[i], p_data[i]::json, p_metadata[i]::json
    FROM generate_subscripts(p_types, 1) AS i;
  PERFORM pg_notify('${CHANNEL}', (head + n)::text);
  RETURN QUERY SELECT coalesce(current_revision, -1) + n, head + n;
END
$fn$;
-- Several appends in one transaction (group commit): write k appends p_counts[k] events to
-- p_streams[k], taken in order from the flat arrays; append j is made of the next p_writes[j]
-- writes (one stream each), all or nothing. One row per write: its last revision and position,
-- or NULLs when its append failed, with the stream's actual revision in o_actual for a write whose
-- expected revision was wrong (NULL for the other writes of that append); the other appends still
-- commit.
CREATE OR REPLACE FUNCTION ${APPEND_BATCH}(
  p_streams text[], p_expected bigint[], p_counts integer[], p_types text[], p_data text[], p_metadata text[],
  p_durable boolean, p_writes integer[]
) RETURNS TABLE (o_item integer, o_last_revision bigint, o_last_position bigint, o_actual text) LANGUAGE plpgsql AS $fn$
DECLARE
  head bigint;
  j integer;
  k integer;
  first integer := 1;
  n integer;
  offs integer := 0;
  expected bigint;
  current_revisions bigint[];
  wrong boolean[];
  failed boolean;
BEGIN
  IF NOT p_durable THEN
    PERFORM set_config('synchronous_commit', 'off', true);
  END IF;
  PERFORM pg_advisory_xact_lock((${APPEND_LOCK_CLASS}::bigint << 32) | '${EVENTS}'::regclass::oid::bigint);
  SELECT coalesce(max(e.position), 0) INTO head FROM ${EVENTS} e;
  FOR j IN 1 .. cardinality(p_writes) LOOP
    -- every write of the append checked before any is inserted (its streams are distinct)
    current_revisions := '{}';
    wrong := '{}';
    failed := false;
    FOR k IN first .. first + p_writes[j] - 1 LOOP
      expected := p_expected[k];
      current_revisions[k - first + 1] := (SELECT max(e.revision) FROM ${EVENTS} e WHERE e.stream = p_streams[k]);
      wrong[k - first + 1] := (expected = -1
        OR (expected = -2 AND current_revisions[k - first + 1] IS NULL)
        OR (expected = -3 AND current_revisions[k - first + 1] IS NOT NULL)
        OR (expected >= 0 AND current_revisions[k - first + 1] = expected)) IS NOT TRUE;
      failed := failed OR wrong[k - first + 1];
    END LOOP;
    FOR k IN first .. first + p_writes[j] - 1 LOOP
      n := p_counts[k];
      o_item := k;
      IF failed THEN
        o_last_revision := NULL;
        o_last_position := NULL;
        o_actual := CASE WHEN wrong[k - first + 1] THEN coalesce(current_revisions[k - first + 1]::text, 'no_stream') END;
      ELSE
        INSERT INTO ${EVENTS} (position, stream, revision, type, data, metadata)
          SELECT head + i, p_streams[k], coalesce(current_revisions[k - first + 1], -1) + i, p_types[offs + i], p_data[offs + i]::json, p_metadata[offs + i]::json
          FROM generate_series(1, n) AS i;
        head := head + n;
        o_last_revision := coalesce(current_revisions[k - first + 1], -1) + n;
        o_last_position := head;
        o_actual := NULL;
      END IF;
      offs := offs + n;
      RETURN NEXT;
    END LOOP;
    first := first + p_writes[j];
  END LOOP;
  PERFORM pg_notify('${CHANNEL}', head::text);
  RETURN;
END
$fn$;
`;
