-- Call recordings (docs/recordings.md): one stereo WAV file per recorded call, under the
-- recordings directory at `path` (relative to it). A second recording of the same call (the call
-- moved to another runner mid-call) is not kept: the session id is unique.
CREATE TABLE call_recordings (
  session_id uuid PRIMARY KEY REFERENCES call_sessions (id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL,
  path text NOT NULL,
  duration_ms integer NOT NULL CHECK (duration_ms >= 0),
  bytes bigint NOT NULL CHECK (bytes >= 44),
  sample_rate integer NOT NULL CHECK (sample_rate IN (8000, 16000)),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX call_recordings_created_at ON call_recordings (created_at);
