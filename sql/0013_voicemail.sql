-- Voicemail detection on outbound calls (docs/voicemail.md): who answered (the first verdict, from
-- the carrier or our own detector, wins) and what the agent did on reaching a machine.
ALTER TABLE call_sessions ADD COLUMN answered_by text CHECK (answered_by IN ('human', 'machine', 'unknown'));
ALTER TABLE call_sessions ADD COLUMN voicemail text CHECK (voicemail IN ('hung_up', 'message_left'));
