-- Entity messages that failed on every delivery (a defect that is not an outage): recorded here
-- and answered with the failure, instead of being retried forever while their caller waits.

CREATE TABLE dead_letters (
  id           uuid PRIMARY KEY,
  entity_type  text NOT NULL,
  entity_id    text NOT NULL,
  rpc          text NOT NULL,
  -- the cluster's id of the message: the same message is recorded once
  request_id   text NOT NULL,
  -- the payload as JSON text (escaped: it may hold what the database could not store)
  payload      text NOT NULL,
  cause        text NOT NULL,
  attempts     integer NOT NULL,
  runner       text,
  created_at   timestamptz NOT NULL,
  UNIQUE (entity_type, entity_id, request_id)
);

CREATE INDEX dead_letters_created_at ON dead_letters (created_at);
