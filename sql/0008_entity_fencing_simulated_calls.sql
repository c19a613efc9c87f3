-- Fencing: each instance of a call's or a campaign's entity takes the next epoch when it starts, and
-- writes only while the row still carries its epoch. An instance left running on a runner that lost
-- the shard (its end waiting on another entity while the shard moved) finds a newer epoch and stops,
-- instead of finishing the call a second time with other figures.
ALTER TABLE call_sessions ADD COLUMN owner_epoch integer NOT NULL DEFAULT 1;
ALTER TABLE campaigns ADD COLUMN owner_epoch integer NOT NULL DEFAULT 1;

-- The simulated carrier's own record of each call it placed: what happens on the line follows from
-- the number and the dial time, so any runner can answer for a call whose dialing runner died, with
-- the times the carrier would report (a real carrier keeps such a record too).
CREATE TABLE simulated_calls (
  provider_call_id  text PRIMARY KEY,
  session_id        uuid NOT NULL,
  to_number         text NOT NULL,
  dialed_at         timestamptz NOT NULL,
  ring_ms           integer NOT NULL,
  -- the scripted conversation of an answered call, known when it is placed
  transcript        jsonb,
  hung_up_at        timestamptz
);
