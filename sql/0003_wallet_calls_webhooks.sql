-- Wallet and double-entry ledger, rate cards, call sessions, idempotent requests, webhook outbox.

ALTER TABLE tenants ADD COLUMN max_concurrent_calls integer CHECK (max_concurrent_calls > 0);

-- The wallet row is a projection of the ledger kept in the same transaction as every entry:
-- balance = sum of the wallet account's entries, reserved = sum of open reservations.
CREATE TABLE wallets (
  tenant_id   uuid PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
  currency    char(3) NOT NULL,
  balance     bigint NOT NULL DEFAULT 0,
  reserved    bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT wallets_available_not_negative CHECK (balance - reserved >= 0)
);

-- Append-only. One row per money movement, identified by its idempotency key.
CREATE TABLE ledger_transactions (
  id               uuid PRIMARY KEY,
  tenant_id        uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  kind             text NOT NULL CHECK (kind IN ('top_up', 'call_charge', 'sms_charge', 'chatapp_charge')),
  idempotency_key  text NOT NULL,
  amount           bigint NOT NULL,
  balance_after    bigint NOT NULL,
  reference        text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ledger_transactions_key UNIQUE (tenant_id, idempotency_key)
);

CREATE INDEX ledger_transactions_tenant_idx ON ledger_transactions (tenant_id, id DESC);

-- Double entry: the entries of a transaction sum to zero. Accounts: wallet, funding,
-- revenue:voice, revenue:sms, revenue:chatapp.
CREATE TABLE ledger_entries (
  id              uuid PRIMARY KEY,
  transaction_id  uuid NOT NULL REFERENCES ledger_transactions (id),
  tenant_id       uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  account         text NOT NULL,
  amount          bigint NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX ledger_entries_tenant_account_idx ON ledger_entries (tenant_id, account);
CREATE INDEX ledger_entries_transaction_idx ON ledger_entries (transaction_id);

CREATE TABLE reservations (
  id          text NOT NULL,
  tenant_id   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  amount      bigint NOT NULL CHECK (amount >= 0),
  status      text NOT NULL CHECK (status IN ('open', 'settled', 'released')),
  charged     bigint NOT NULL DEFAULT 0,
  created_at  timestamptz NOT NULL DEFAULT now(),
  closed_at   timestamptz,
  PRIMARY KEY (tenant_id, id)
);

CREATE INDEX reservations_open_idx ON reservations (tenant_id) WHERE status = 'open';

-- Each extension of a reservation is applied once.
CREATE TABLE reservation_steps (
  tenant_id       uuid NOT NULL,
  reservation_id  text NOT NULL,
  step            integer NOT NULL,
  amount          bigint NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, reservation_id, step)
);

-- Per-tenant prices; tenants without a row pay the platform defaults.
CREATE TABLE rate_cards (
  tenant_id                  uuid PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
  voice_per_minute           integer NOT NULL CHECK (voice_per_minute >= 0),
  billing_increment_seconds  integer NOT NULL CHECK (billing_increment_seconds > 0),
  sms_per_segment            integer NOT NULL CHECK (sms_per_segment >= 0),
  chatapp_per_message        integer NOT NULL CHECK (chatapp_per_message >= 0),
  reservation_chunk_seconds  integer NOT NULL CHECK (reservation_chunk_seconds >= 30),
  updated_at                 timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE call_sessions (
  id                    uuid PRIMARY KEY,
  tenant_id             uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  job_id                text NOT NULL,
  agent_id              uuid NOT NULL,
  voice_number_id       uuid NOT NULL,
  provider              text NOT NULL,
  from_number           text NOT NULL,
  to_number             text NOT NULL,
  customer_id           uuid,
  campaign_id           text,
  campaign_attempt_id   text,
  metadata              jsonb NOT NULL DEFAULT '{}',
  direction             text NOT NULL DEFAULT 'OUTGOING',
  status                text NOT NULL CHECK (status IN ('QUEUED', 'DIALING', 'RINGING', 'IN_PROGRESS', 'ENDED')),
  outcome               text CHECK (outcome IN ('ANSWERED', 'UNANSWERED', 'BUSY', 'FAILED', 'CANCELED')),
  end_reason            text,
  provider_call_id      text,
  spec                  jsonb NOT NULL,
  created_at            timestamptz NOT NULL DEFAULT now(),
  dialed_at             timestamptz,
  ringing_at            timestamptz,
  answered_at           timestamptz,
  ended_at              timestamptz,
  reserved_seconds      integer NOT NULL DEFAULT 0,
  duration_seconds      integer NOT NULL DEFAULT 0,
  billed_seconds        integer NOT NULL DEFAULT 0,
  cost                  bigint NOT NULL DEFAULT 0,
  currency              char(3) NOT NULL,
  transcript            jsonb NOT NULL DEFAULT '[]',
  updated_at            timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX call_sessions_tenant_idx ON call_sessions (tenant_id, id DESC);
CREATE INDEX call_sessions_live_idx ON call_sessions (tenant_id) WHERE status <> 'ENDED';
CREATE INDEX call_sessions_agent_idx ON call_sessions (tenant_id, agent_id, id DESC);
CREATE INDEX call_sessions_campaign_idx ON call_sessions (tenant_id, campaign_id, id DESC) WHERE campaign_id IS NOT NULL;
CREATE UNIQUE INDEX call_sessions_provider_call_key ON call_sessions (provider, provider_call_id) WHERE provider_call_id IS NOT NULL;

CREATE TABLE call_events (
  id          uuid PRIMARY KEY,
  session_id  uuid NOT NULL REFERENCES call_sessions (id) ON DELETE CASCADE,
  type        text NOT NULL,
  detail      jsonb,
  at          timestamptz NOT NULL
);

CREATE INDEX call_events_session_idx ON call_events (session_id, at, id);

-- A request sent with an Idempotency-Key header: the first answer is kept and replayed.
CREATE TABLE idempotent_requests (
  tenant_id     uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  scope         text NOT NULL,
  key           text NOT NULL,
  request_hash  text NOT NULL,
  response      jsonb,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, scope, key)
);

-- Outbox of call-result webhooks: written in the transaction that ends the call.
CREATE TABLE webhook_deliveries (
  id               uuid PRIMARY KEY,
  tenant_id        uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  api_key_id       uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  event_id         uuid NOT NULL,
  event_type       text NOT NULL,
  url              text NOT NULL,
  body             text NOT NULL,
  attempts         integer NOT NULL DEFAULT 0,
  last_status      integer,
  last_error       text,
  last_attempt_at  timestamptz,
  next_attempt_at  timestamptz,
  claimed_until    timestamptz,
  delivered_at     timestamptz,
  failed_at        timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT webhook_deliveries_event_key UNIQUE (event_id, api_key_id)
);

CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE delivered_at IS NULL AND failed_at IS NULL;
CREATE INDEX webhook_deliveries_tenant_idx ON webhook_deliveries (tenant_id, id DESC);
