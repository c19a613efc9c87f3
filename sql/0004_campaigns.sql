-- Voice campaigns, their contact snapshots and call attempts, and the tenant's do-not-call list.
--
-- References to agents, voice numbers and contact lists are plain ids, not foreign keys: a
-- campaign outlives a removed number (it fails with a reason) and a deleted list (dialing works
-- from the snapshot). Deleting a list or a number that a scheduled, running or paused campaign
-- holds is refused by the API instead.

CREATE TABLE campaigns (
  id                    uuid PRIMARY KEY,
  tenant_id             uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name                  text NOT NULL,
  description           text NOT NULL DEFAULT '',
  agent_id              uuid NOT NULL,
  voice_number_id       uuid NOT NULL,
  contact_list_id       uuid NOT NULL,
  status                text NOT NULL DEFAULT 'DRAFT'
                        CHECK (status IN ('DRAFT', 'SCHEDULED', 'RUNNING', 'PAUSED', 'COMPLETED', 'FAILED')),
  status_reason         text,
  total_contacts        integer NOT NULL DEFAULT 0,
  dialed_contacts       integer NOT NULL DEFAULT 0,
  answered_contacts     integer NOT NULL DEFAULT 0,
  dial_timeout          integer NOT NULL,
  max_attempts          integer NOT NULL,
  redial_delay_min      integer NOT NULL,
  max_concurrent_calls  integer NOT NULL,
  timezone              text NOT NULL,
  call_window_start     text NOT NULL,
  call_window_end       text NOT NULL,
  call_days             jsonb NOT NULL,
  metadata              jsonb NOT NULL DEFAULT '{}',
  scheduled_at          timestamptz,
  started_at            timestamptz,
  completed_at          timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);

-- ids are UUIDv7: (tenant, id DESC) is newest first by creation
CREATE INDEX campaigns_tenant_idx ON campaigns (tenant_id, id DESC);
CREATE INDEX campaigns_tenant_status_idx ON campaigns (tenant_id, status, id DESC);
-- what the supervisor wakes, and what holds a list or a number
CREATE INDEX campaigns_active_idx ON campaigns (status) WHERE status IN ('SCHEDULED', 'RUNNING', 'PAUSED');

-- The contacts a campaign dials, copied from its list when dialing starts.
CREATE TABLE campaign_contacts (
  campaign_id      uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  contact_id       uuid NOT NULL,
  position         integer NOT NULL,
  phone_number     text NOT NULL,
  name             text,
  state            text NOT NULL DEFAULT 'PENDING'
                   CHECK (state IN ('PENDING', 'IN_PROGRESS', 'ANSWERED', 'EXHAUSTED', 'SKIPPED', 'CANCELLED')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz,
  last_outcome     text,
  PRIMARY KEY (campaign_id, contact_id)
);

-- the dialer's queue: due contacts in order
CREATE INDEX campaign_contacts_due_idx ON campaign_contacts (campaign_id, next_attempt_at, position) WHERE state = 'PENDING';

-- One row per attempt, claimed before the dial: (campaign, contact, attempt number) is unique, so
-- an attempt is dialed at most once whatever crashes; its session id is fixed at the claim.
CREATE TABLE campaign_attempts (
  id              uuid PRIMARY KEY,
  campaign_id     uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  tenant_id       uuid NOT NULL,
  contact_id      uuid NOT NULL,
  attempt_number  integer NOT NULL CHECK (attempt_number >= 1),
  status          text NOT NULL CHECK (status IN ('CLAIMED', 'DIALED', 'ENDED', 'SKIPPED')),
  outcome         text,
  skip_reason     text,
  session_id      uuid UNIQUE,
  claimed_at      timestamptz NOT NULL,
  dialed_at       timestamptz,
  ended_at        timestamptz,
  CONSTRAINT campaign_attempts_once_key UNIQUE (campaign_id, contact_id, attempt_number)
);

CREATE INDEX campaign_attempts_campaign_idx ON campaign_attempts (campaign_id, id);
CREATE INDEX campaign_attempts_open_idx ON campaign_attempts (campaign_id) WHERE status IN ('CLAIMED', 'DIALED');

CREATE TABLE dnc_numbers (
  tenant_id     uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  phone_number  text NOT NULL,
  reason        text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, phone_number)
);
