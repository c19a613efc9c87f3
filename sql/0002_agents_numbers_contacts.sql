-- Personas, agents, voice numbers, contact lists and contacts.

CREATE TABLE personas (
  id                uuid PRIMARY KEY,
  name              text NOT NULL,
  description       text NOT NULL,
  default_prompt    text NOT NULL,
  default_greeting  text NOT NULL,
  sort_order        integer NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now()
);

-- The catalogue ships with the platform; ids are fixed so they are the same on every install.
INSERT INTO personas (id, name, description, default_prompt, default_greeting, sort_order) VALUES
('4a1f0c56-2c1e-4d1a-9a53-0d6b3f6e0001', 'Receptionist',
 'Answers and routes calls for a business, takes messages, shares opening hours.',
 'You are the receptionist of {{company}}. Greet callers warmly, find out what they need, answer questions about opening hours and location from the knowledge base, and take a message with name, number and reason when nobody can help right away. Keep answers short and never invent facts.',
 'Hello, thank you for calling. How can I help you today?', 1),
('4a1f0c56-2c1e-4d1a-9a53-0d6b3f6e0002', 'Appointment setter',
 'Books, moves and confirms appointments.',
 'You book appointments for {{company}}. Offer the next available slots, confirm the date, time and the caller''s name and number, and repeat the booking back before ending the call. If the caller wants to cancel, confirm which appointment first.',
 'Hi! I can help you book or change an appointment. What works for you?', 2),
('4a1f0c56-2c1e-4d1a-9a53-0d6b3f6e0003', 'Sales qualifier',
 'Calls leads, qualifies interest and budget, hands hot leads to a person.',
 'You call leads on behalf of {{company}}. Introduce yourself, ask whether now is a good time, learn the lead''s need, timeline and budget in a friendly way, and offer a call with a specialist when they are interested. Respect a no immediately.',
 'Hi, this is the assistant from {{company}}. Do you have a minute to talk about your enquiry?', 3),
('4a1f0c56-2c1e-4d1a-9a53-0d6b3f6e0004', 'Customer support',
 'Answers product questions from the knowledge base and opens tickets.',
 'You are a support agent for {{company}}. Answer from the knowledge base only; when you are not sure, say so and offer to open a ticket with the caller''s details. Be patient and confirm the problem is solved before ending.',
 'Hello, you have reached support. What can I help you with?', 4),
('4a1f0c56-2c1e-4d1a-9a53-0d6b3f6e0005', 'Survey caller',
 'Runs short surveys and records answers.',
 'You run a short survey for {{company}}. Ask one question at a time, accept any answer without arguing, thank the person at the end, and stop at once if they ask you to.',
 'Hi! We are running a two-minute survey. Would you be willing to answer a few questions?', 5),
('4a1f0c56-2c1e-4d1a-9a53-0d6b3f6e0006', 'Payment reminder',
 'Reminds customers of due payments politely and offers ways to pay.',
 'You remind customers of {{company}} about a payment that is due. Verify you are speaking to the right person before sharing any detail, state the amount and due date, offer the payment options, and never threaten or pressure.',
 'Hello, this is a courtesy call from {{company}} about your account. Is this a good time?', 6);

CREATE TABLE agents (
  id                uuid PRIMARY KEY,
  tenant_id         uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  brain_id          uuid NOT NULL UNIQUE,
  persona_id        uuid REFERENCES personas (id),
  name              text NOT NULL,
  is_active         boolean NOT NULL DEFAULT true,
  greet_message     text NOT NULL,
  agent_prompt      text NOT NULL,
  metadata          jsonb NOT NULL DEFAULT '{}',
  channel           text CHECK (channel IN ('VOICE', 'CHATAPP')),
  settings          jsonb NOT NULL DEFAULT '{}',
  connection_id     text,
  webhook_token     text UNIQUE,
  webhook_token_at  timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX agents_tenant_idx ON agents (tenant_id, id DESC);

CREATE TABLE voice_numbers (
  id            uuid PRIMARY KEY,
  tenant_id     uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  phone_number  text NOT NULL,
  provider      text NOT NULL CHECK (provider IN ('PROVIDER_A', 'PROVIDER_B', 'PROVIDER_C')),
  label         text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT voice_numbers_tenant_number_key UNIQUE (tenant_id, phone_number)
);

CREATE INDEX voice_numbers_tenant_idx ON voice_numbers (tenant_id, id DESC);

CREATE TABLE contact_lists (
  id             uuid PRIMARY KEY,
  tenant_id      uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name           text NOT NULL,
  metadata       jsonb NOT NULL DEFAULT '{}',
  -- kept in the same transaction as every insert and delete of contacts
  contact_count  integer NOT NULL DEFAULT 0 CHECK (contact_count >= 0),
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX contact_lists_tenant_name_key ON contact_lists (tenant_id, lower(name));
CREATE INDEX contact_lists_tenant_idx ON contact_lists (tenant_id, id DESC);

CREATE TABLE contacts (
  id               uuid PRIMARY KEY,
  tenant_id        uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  contact_list_id  uuid NOT NULL REFERENCES contact_lists (id) ON DELETE CASCADE,
  phone_number     text NOT NULL,
  name             text,
  email            text,
  metadata         jsonb NOT NULL DEFAULT '{}',
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT contacts_list_phone_key UNIQUE (contact_list_id, phone_number)
);

-- ids are UUIDv7 (time-ordered): (list, id) is insertion order, and pages walk this index
CREATE INDEX contacts_list_order_idx ON contacts (contact_list_id, id);
