-- A live call handed to another number (docs/calls.md, Transfer): at most one a call. The row is
-- claimed before the carrier is asked, so a request that comes again (a redelivered entity message,
-- the agent's tool and the API at once) asks the carrier once; a transfer the carrier refused is
-- marked failed and may be asked for again.
CREATE TABLE call_transfers (
  session_id    uuid PRIMARY KEY REFERENCES call_sessions (id) ON DELETE CASCADE,
  tenant_id     uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  to_number     text NOT NULL,
  mode          text NOT NULL CHECK (mode IN ('cold', 'warm')),
  source        text NOT NULL CHECK (source IN ('agent', 'api')),
  status        text NOT NULL CHECK (status IN ('requested', 'done', 'failed')),
  failure       text,
  requested_at  timestamptz NOT NULL,
  done_at       timestamptz
);
CREATE INDEX call_transfers_tenant_idx ON call_transfers (tenant_id, requested_at);
