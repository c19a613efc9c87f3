-- Web calls: a browser or an SDK on a WebSocket, with no voice number and no phone numbers, and
-- their own price per minute (NULL: the tenant's voice price).
ALTER TABLE call_sessions ALTER COLUMN voice_number_id DROP NOT NULL;
ALTER TABLE call_sessions ALTER COLUMN from_number DROP NOT NULL;
ALTER TABLE call_sessions ALTER COLUMN to_number DROP NOT NULL;
ALTER TABLE rate_cards ADD COLUMN web_per_minute integer CHECK (web_per_minute >= 0);
