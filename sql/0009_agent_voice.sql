-- An agent's voice choices (speech-to-text, language model, text-to-speech, turn-taking, idle handling,
-- call length, tools): only what the agent chose; the platform's defaults fill the rest when read.
ALTER TABLE agents ADD COLUMN voice jsonb NOT NULL DEFAULT '{}';

-- The simulated carrier keeps its callee's script (what the call's metadata asked it to say), not a
-- transcript: the conversation engine writes the transcript to the call as it is said.
ALTER TABLE simulated_calls RENAME COLUMN transcript TO caller_script;
