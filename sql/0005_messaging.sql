-- Post-call messaging: chat-app and SMS campaigns (one of each per agent), the chat-app sender
-- override per agent and the tenant's webhook verify token, the message outbox, and what the
-- chat-app webhook reports back (status updates, inbound replies).

CREATE TABLE chatapp_campaigns (
  id               uuid PRIMARY KEY,
  tenant_id        uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  agent_id         uuid NOT NULL,
  name             text NOT NULL,
  phone_number_id  text,
  is_active        boolean NOT NULL DEFAULT true,
  templates        jsonb NOT NULL,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  CONSTRAINT chatapp_campaigns_agent_key UNIQUE (tenant_id, agent_id)
);

CREATE INDEX chatapp_campaigns_tenant_idx ON chatapp_campaigns (tenant_id, id DESC);

CREATE TABLE sms_campaigns (
  id               uuid PRIMARY KEY,
  tenant_id        uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  agent_id         uuid NOT NULL,
  name             text NOT NULL,
  sender_number    text,
  sender_provider  text CHECK (sender_provider IN ('PROVIDER_A', 'PROVIDER_B', 'PROVIDER_C')),
  is_active        boolean NOT NULL DEFAULT true,
  templates        jsonb NOT NULL,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  CONSTRAINT sms_campaigns_agent_key UNIQUE (tenant_id, agent_id)
);

CREATE INDEX sms_campaigns_tenant_idx ON sms_campaigns (tenant_id, id DESC);

-- POST /chatapp/agents/{agentId}/attach-number: the agent's dedicated chat-app sender.
CREATE TABLE chatapp_agent_numbers (
  id               uuid NOT NULL UNIQUE,
  tenant_id        uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  agent_id         uuid NOT NULL,
  phone_number_id  text NOT NULL,
  updated_at       timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, agent_id)
);

CREATE TABLE chatapp_webhook_tokens (
  tenant_id   uuid PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
  token       text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- The outbox. A row is written in the transaction that ends the call, so (session, channel) is
-- unique: whatever is retried, a call gets at most one message per channel.
CREATE TABLE messages (
  id                   uuid PRIMARY KEY,
  tenant_id            uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  channel              text NOT NULL CHECK (channel IN ('CHATAPP', 'SMS')),
  session_id           uuid NOT NULL,
  campaign_id          uuid NOT NULL,
  agent_id             uuid NOT NULL,
  contact_id           uuid,
  call_direction       text NOT NULL,
  call_outcome         text NOT NULL,
  to_number            text NOT NULL,
  sender               text,
  provider             text NOT NULL,
  adapter              text,
  template_name        text,
  language_code        text,
  body                 text,
  body_parameters      jsonb NOT NULL DEFAULT '[]',
  dlt_sender_id        text,
  dlt_template_id      text,
  encoding             text,
  segments             integer,
  price                bigint NOT NULL CHECK (price >= 0),
  cost                 bigint NOT NULL DEFAULT 0,
  currency             char(3) NOT NULL,
  status               text NOT NULL DEFAULT 'QUEUED'
                       CHECK (status IN ('QUEUED', 'SENDING', 'SENT', 'DELIVERED', 'READ', 'FAILED')),
  provider_message_id  text,
  attempts             integer NOT NULL DEFAULT 0,
  reserved             boolean NOT NULL DEFAULT false,
  last_http_status     integer,
  error_code           text,
  error_message        text,
  next_attempt_at      timestamptz,
  claimed_until        timestamptz,
  first_attempt_at     timestamptz,
  created_at           timestamptz NOT NULL,
  sent_at              timestamptz,
  delivered_at         timestamptz,
  read_at              timestamptz,
  failed_at            timestamptz,
  CONSTRAINT messages_once_per_call_key UNIQUE (session_id, channel)
);

CREATE INDEX messages_due_idx ON messages (next_attempt_at) WHERE status IN ('QUEUED', 'SENDING');
CREATE INDEX messages_tenant_channel_idx ON messages (tenant_id, channel, id DESC);
CREATE UNIQUE INDEX messages_provider_key ON messages (channel, provider_message_id) WHERE provider_message_id IS NOT NULL;

-- Every status the messaging platform reported, once: a replayed delivery adds nothing.
CREATE TABLE message_status_events (
  provider_message_id  text NOT NULL,
  status               text NOT NULL,
  tenant_id            uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  at                   timestamptz NOT NULL,
  error_code           text,
  error_title          text,
  received_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, provider_message_id, status)
);

-- Inbound replies from contacts, once each per tenant by the platform's message id.
CREATE TABLE chatapp_replies (
  id                   uuid PRIMARY KEY,
  tenant_id            uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  provider_message_id  text NOT NULL,
  from_number          text NOT NULL,
  phone_number_id      text NOT NULL,
  type                 text NOT NULL,
  text                 text,
  contact_name         text,
  payload              jsonb NOT NULL,
  received_at          timestamptz NOT NULL,
  CONSTRAINT chatapp_replies_once_key UNIQUE (tenant_id, provider_message_id)
);

CREATE INDEX chatapp_replies_tenant_idx ON chatapp_replies (tenant_id, id DESC);

-- Message funds are held while a message is sent, like a call's; they do not count towards the
-- tenant's concurrent-call limit.
ALTER TABLE reservations ADD COLUMN purpose text NOT NULL DEFAULT 'call' CHECK (purpose IN ('call', 'message'));
DROP INDEX reservations_open_idx;
CREATE INDEX reservations_open_idx ON reservations (tenant_id) WHERE status = 'open' AND purpose = 'call';
