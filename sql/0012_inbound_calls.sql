-- Inbound calls: the carrier's call id (Twilio's CallSid, Telnyx's call_control_id) names one
-- session, so a carrier that sends the same incoming-call webhook again reaches the same call.
CREATE TABLE inbound_calls (
  carrier          text NOT NULL,
  carrier_call_id  text NOT NULL,
  session_id       uuid NOT NULL UNIQUE,
  tenant_id        uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (carrier, carrier_call_id)
);

-- Routing an incoming call: the agents whose voice settings name a number.
CREATE INDEX agents_voice_number_idx ON agents ((settings ->> 'phone_number')) WHERE settings ? 'phone_number';

-- An incoming call is attributed to the tenant's contact with the caller's number.
CREATE INDEX contacts_tenant_phone_idx ON contacts (tenant_id, phone_number);
