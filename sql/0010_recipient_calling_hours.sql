-- Recipient-local calling hours (docs/campaigns.md): a campaign may dial a contact only inside the
-- contact's own local hours, derived from the number. Off for every campaign that exists already.
ALTER TABLE campaigns
  ADD COLUMN recipient_hours_enabled boolean NOT NULL DEFAULT false,
  ADD COLUMN recipient_hours_start   text    NOT NULL DEFAULT '08:00',
  ADD COLUMN recipient_hours_end     text    NOT NULL DEFAULT '21:00';

-- A pending contact whose local hours were closed when it came due: its next_attempt_at moved to
-- their next opening (no attempt recorded). Cleared when it is claimed; counted in the progress view.
ALTER TABLE campaign_contacts ADD COLUMN awaiting_local_hours boolean NOT NULL DEFAULT false;
