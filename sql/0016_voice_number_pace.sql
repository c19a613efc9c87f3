-- Dial pacing per voice number (VOICE_NUMBER_CPS), shared by every runner: the number's next free
-- slot, in epoch milliseconds. A dial takes the slot and moves it on in one statement, so campaigns
-- on different runners sharing a number share its rate. (No foreign key: a number deleted while a
-- campaign dials it must not fail the dial's pacing; its row is a few bytes.)
CREATE TABLE voice_number_pace (
  voice_number_id uuid PRIMARY KEY,
  next_at         bigint NOT NULL
);
