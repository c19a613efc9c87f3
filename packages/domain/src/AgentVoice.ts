/**
 * How an agent converses on the phone (our extension of the agent resource, `voice`): which speech
 * recognition, language model and voice it uses, and how it takes turns. Every field is optional; an
 * agent stores only what it chose, and `resolveVoice` fills the rest with the platform's defaults (a
 * provider unset is the platform's default provider, configured by its environment). The system
 * prompt is the agent's `agent_prompt`, the greeting its `greetMessage`.
 */
import * as Schema from "effect/Schema"
import { VOICE_LIMITS } from "./Limits.js"
import { E164 } from "./Phone.js"
import { defaultBackchannels } from "./TurnPolicy.js"
import { ResolvedVoicemail, resolveVoicemail, voicemailFields } from "./Voicemail.js"

export const SpeechToTextProviders = ["deepgram", "openai", "none"] as const
export const LanguageModelProviders = ["openai", "offline"] as const
export const TextToSpeechProviders = ["elevenlabs", "openai", "flite"] as const

const text = (max: number, label: string) =>
  Schema.String.pipe(
    Schema.filter((s) => s.trim().length >= 1 && s.length <= max, {
      message: () => `${label} must be 1 to ${max} characters`
    })
  )

const int = ([min, max]: readonly [number, number], label: string) =>
  Schema.Int.pipe(
    Schema.filter((n) => n >= min && n <= max, {
      message: () => `${label} must be a whole number from ${min} to ${max}`
    })
  )

export const VoiceLanguage = Schema.String.pipe(
  Schema.filter((s) => /^(multi|[a-z]{2,3}(-[A-Z]{2})?)$/.test(s), {
    message: () => "language must be a language tag such as en, en-US, hi-IN or es, or multi"
  }),
  Schema.annotations({ examples: ["en-US", "hi-IN", "multi"] })
)

const speechToTextFields = {
  provider: Schema.Literal(...SpeechToTextProviders).annotations({
    description:
      "deepgram (streaming), openai (an OpenAI-compatible transcription API, per utterance), or none; default: the " +
      "platform's"
  }),
  model: text(VOICE_LIMITS.providerText, "speechToText.model").annotations({
    description: "The provider's model (Deepgram nova-3, whisper-1, …)"
  })
}
const languageModelFields = {
  provider: Schema.Literal(...LanguageModelProviders).annotations({
    description:
      "openai (any OpenAI-compatible chat completions API the platform is configured with) or offline (answers " +
      "from the agent's knowledge bases); default: the platform's"
  }),
  model: text(VOICE_LIMITS.providerText, "languageModel.model").annotations({
    description: "The model at that API (gpt-4o-mini, llama-3.1-8b-instant, …)"
  }),
  temperature: Schema.Number.pipe(Schema.between(...VOICE_LIMITS.temperature)).annotations({ description: "0 to 2" })
}
const textToSpeechFields = {
  provider: Schema.Literal(...TextToSpeechProviders).annotations({
    description: "elevenlabs, openai, or flite (built in, offline); default: the platform's"
  }),
  voice: text(VOICE_LIMITS.providerText, "textToSpeech.voice").annotations({
    description: "The provider's voice id or name (flite: kal or slt)"
  }),
  model: text(VOICE_LIMITS.providerText, "textToSpeech.model")
}
const endpointingFields = {
  minDelayMs: int(VOICE_LIMITS.endpointing.minDelayMs, "endpointing.minDelayMs").annotations({
    description: "Wait after a finished sentence before the caller's turn is over (default 300)"
  }),
  maxDelayMs: int(VOICE_LIMITS.endpointing.maxDelayMs, "endpointing.maxDelayMs").annotations({
    description: "Wait when the caller stopped on a number or a word that leads on (default 2500)"
  })
}
const interruptionFields = {
  enabled: Schema.Boolean.annotations({ description: "Whether the caller may interrupt the agent (default true)" }),
  minSpeechMs: int(VOICE_LIMITS.interruption.minSpeechMs, "interruption.minSpeechMs").annotations({
    description: "Speech needed before the agent pauses for it (default 200)"
  }),
  minWords: int(VOICE_LIMITS.interruption.minWords, "interruption.minWords").annotations({
    description: "Words (not backchannel phrases) that confirm an interruption (default 1)"
  }),
  backchannels: Schema.Array(text(VOICE_LIMITS.interruption.backchannel, "each backchannel phrase")).pipe(
    Schema.filter((a) => a.length <= VOICE_LIMITS.interruption.backchannels, {
      message: () => `interruption.backchannels holds at most ${VOICE_LIMITS.interruption.backchannels} phrases`
    })
  ).annotations({ description: "Phrases that never interrupt the agent (default: uh-huh, okay, yeah, right, …)" })
}
const idleFields = {
  reminderAfterSeconds: int(VOICE_LIMITS.idle.reminderAfterSeconds, "idle.reminderAfterSeconds").annotations({
    description: "Silence after the agent finished before a reminder (default 8)"
  }),
  reminders: int(VOICE_LIMITS.idle.reminders, "idle.reminders").annotations({
    description: "Reminders before the goodbye and hang-up (default 1)"
  }),
  reminderText: text(VOICE_LIMITS.idle.text, "idle.reminderText").annotations({
    description: "Default: Are you still there?"
  }),
  goodbyeText: text(VOICE_LIMITS.idle.text, "idle.goodbyeText").annotations({
    description: "Said before hanging up on silence"
  })
}
const toolsFields = {
  endCall: Schema.Boolean.annotations({ description: "The model may end the call (default true)" }),
  knowledgeLookup: Schema.Boolean.annotations({
    description: "The model may search the agent's knowledge bases (default true; only with knowledge bases)"
  })
}

const keypadFields = {
  terminator: Schema.Literal("#", "*", "none").annotations({
    description: "The key that ends the caller's keypad entry (default #); none: only the timeout or maxDigits end it"
  }),
  interDigitTimeoutMs: int(VOICE_LIMITS.keypad.interDigitTimeoutMs, "keypad.interDigitTimeoutMs").annotations({
    description: "An entry ends this long after its last key (default 3000)"
  }),
  maxDigits: int(VOICE_LIMITS.keypad.maxDigits, "keypad.maxDigits").annotations({
    description: "An entry ends at this many keys (default 20)"
  }),
  agentMayPress: Schema.Boolean.annotations({
    description: "The model may press keys on the call (send_dtmf, to navigate a phone menu; default true)"
  })
}
const transferFields = {
  numbers: Schema.Array(E164).pipe(
    Schema.filter((a) => a.length <= VOICE_LIMITS.transfer.numbers, {
      message: () => `transfer.numbers holds at most ${VOICE_LIMITS.transfer.numbers} numbers`
    })
  ).annotations({
    description:
      "The numbers the model may transfer the call to (transfer_call; the first is its default). None: no transfer tool"
  }),
  warmMessage: text(VOICE_LIMITS.transfer.warmMessage, "transfer.warmMessage").annotations({
    description:
      "Said before a warm transfer when the model gives no line of its own (default: Please hold while I transfer " +
      "your call.)"
  })
}

type Fields = Record<string, Schema.Schema.Any>
type Optional<F extends Fields> = { readonly [K in keyof F]: Schema.optional<F[K]> }
type Patch<F extends Fields> = { readonly [K in keyof F]: Schema.optional<Schema.NullOr<F[K]>> }
const closed = { parseOptions: { onExcessProperty: "error" as const } }

/** Each field optional: a group of an agent's choices. */
const choices = <F extends Fields>(fields: F) =>
  Schema.Struct(Object.fromEntries(Object.entries(fields).map(([k, s]) => [k, Schema.optional(s)])) as Optional<F>)
    .annotations(closed)
/** Each field optional or null (removes the choice): a group in a PATCH. */
const patchOf = <F extends Fields>(fields: F) =>
  Schema.Struct(
    Object.fromEntries(Object.entries(fields).map(([k, s]) => [k, Schema.optional(Schema.NullOr(s))])) as Patch<F>
  )
    .annotations(closed)

const VOICE_DESCRIPTION =
  "How the agent converses on the phone (our extension): speech recognition, language model, voice, " +
  "turn-taking, idle handling, call length, tools and voicemail. Fields left out take the platform's defaults (see " +
  "effectiveVoice)."

export const AgentVoice = Schema.Struct({
  language: Schema.optional(
    VoiceLanguage.annotations({ description: "Language the agent hears and speaks (default en-US)" })
  ),
  speechToText: Schema.optional(choices(speechToTextFields)),
  languageModel: Schema.optional(choices(languageModelFields)),
  textToSpeech: Schema.optional(choices(textToSpeechFields)),
  endpointing: Schema.optional(choices(endpointingFields)),
  interruption: Schema.optional(choices(interruptionFields)),
  idle: Schema.optional(choices(idleFields)),
  maxCallSeconds: Schema.optional(
    int(VOICE_LIMITS.maxCallSeconds, "maxCallSeconds").annotations({
      description: "Talk time after which the call is ended (default: the platform's MAX_CALL_DURATION)"
    })
  ),
  tools: Schema.optional(choices(toolsFields)),
  voicemail: Schema.optional(choices(voicemailFields)),
  keypad: Schema.optional(choices(keypadFields)),
  transfer: Schema.optional(choices(transferFields))
}).annotations({ ...closed, identifier: "AgentVoice", description: VOICE_DESCRIPTION })
export type AgentVoice = typeof AgentVoice.Type

/** The same, each key also `null` (removes the choice): a PATCH's `voice`, merged key by key (RFC 7396). */
export const AgentVoicePatch = Schema.Struct({
  language: Schema.optional(Schema.NullOr(VoiceLanguage)),
  speechToText: Schema.optional(Schema.NullOr(patchOf(speechToTextFields))),
  languageModel: Schema.optional(Schema.NullOr(patchOf(languageModelFields))),
  textToSpeech: Schema.optional(Schema.NullOr(patchOf(textToSpeechFields))),
  endpointing: Schema.optional(Schema.NullOr(patchOf(endpointingFields))),
  interruption: Schema.optional(Schema.NullOr(patchOf(interruptionFields))),
  idle: Schema.optional(Schema.NullOr(patchOf(idleFields))),
  maxCallSeconds: Schema.optional(Schema.NullOr(int(VOICE_LIMITS.maxCallSeconds, "maxCallSeconds"))),
  tools: Schema.optional(Schema.NullOr(patchOf(toolsFields))),
  voicemail: Schema.optional(Schema.NullOr(patchOf(voicemailFields))),
  keypad: Schema.optional(Schema.NullOr(patchOf(keypadFields))),
  transfer: Schema.optional(Schema.NullOr(patchOf(transferFields)))
}).annotations({
  ...closed,
  identifier: "AgentVoicePatch",
  description: "Merged into the agent's voice choices key by key (RFC 7396); null removes a choice or a whole group; " +
    "unknown keys are refused"
})
export type AgentVoicePatch = typeof AgentVoicePatch.Type

export interface PlatformVoiceDefaults {
  readonly speechToText: (typeof SpeechToTextProviders)[number]
  readonly languageModel: (typeof LanguageModelProviders)[number]
  readonly textToSpeech: (typeof TextToSpeechProviders)[number]
  readonly maxCallSeconds: number
}

/** Every choice of an agent's voice, its own or the platform's default. */
export const ResolvedVoice = Schema.Struct({
  language: Schema.String,
  speechToText: Schema.Struct({
    provider: Schema.Literal(...SpeechToTextProviders),
    model: Schema.NullOr(Schema.String)
  }),
  languageModel: Schema.Struct({
    provider: Schema.Literal(...LanguageModelProviders),
    model: Schema.NullOr(Schema.String),
    temperature: Schema.NullOr(Schema.Number)
  }),
  textToSpeech: Schema.Struct({
    provider: Schema.Literal(...TextToSpeechProviders),
    voice: Schema.NullOr(Schema.String),
    model: Schema.NullOr(Schema.String)
  }),
  endpointing: Schema.Struct({ minDelayMs: Schema.Int, maxDelayMs: Schema.Int }),
  interruption: Schema.Struct({
    enabled: Schema.Boolean,
    minSpeechMs: Schema.Int,
    minWords: Schema.Int,
    backchannels: Schema.Array(Schema.String)
  }),
  idle: Schema.Struct({
    reminderAfterSeconds: Schema.Int,
    reminders: Schema.Int,
    reminderText: Schema.String,
    goodbyeText: Schema.String
  }),
  maxCallSeconds: Schema.Int,
  tools: Schema.Struct({ endCall: Schema.Boolean, knowledgeLookup: Schema.Boolean }),
  voicemail: ResolvedVoicemail,
  keypad: Schema.Struct({
    terminator: Schema.NullOr(Schema.String),
    interDigitTimeoutMs: Schema.Int,
    maxDigits: Schema.Int,
    agentMayPress: Schema.Boolean
  }),
  transfer: Schema.Struct({ numbers: Schema.Array(Schema.String), warmMessage: Schema.String }),
  /** What the platform can do for this agent now: whether it hears, and why not. */
  notices: Schema.Array(Schema.String).annotations({
    description:
      "What the platform cannot do for this agent as configured (e.g. no speech-to-text: it can speak but not hear)"
  })
}).annotations({ identifier: "ResolvedVoice" })
export type ResolvedVoice = typeof ResolvedVoice.Type

/** The phrases taken for a backchannel when the agent names none: `TurnPolicy`'s. */
export const DEFAULT_BACKCHANNELS: ReadonlyArray<string> = defaultBackchannels

/** Said before a warm transfer when neither the model nor the agent gives a line. */
export const DEFAULT_WARM_MESSAGE = "Please hold while I transfer your call."

/** Fills an agent's voice choices with the defaults. */
export const resolveVoice = (
  voice: AgentVoice,
  defaults: PlatformVoiceDefaults,
  available: {
    readonly speechToText: ReadonlyArray<string>
    readonly languageModel: ReadonlyArray<string>
    readonly textToSpeech: ReadonlyArray<string>
  }
): ResolvedVoice => {
  const notices: Array<string> = []
  const chosenStt = voice.speechToText?.provider ?? defaults.speechToText
  const chosenLlm = voice.languageModel?.provider ?? defaults.languageModel
  const chosenTts = voice.textToSpeech?.provider ?? defaults.textToSpeech
  // a provider chosen but not configured here gives way to what is, and says so
  const stt = chosenStt === "none" || available.speechToText.includes(chosenStt) ? chosenStt : "none"
  const llm = available.languageModel.includes(chosenLlm) ? chosenLlm : "offline"
  const tts = available.textToSpeech.includes(chosenTts) ? chosenTts : "flite"
  if (chosenStt !== stt) {
    notices.push(
      `Speech-to-text provider ${chosenStt} is not configured on this platform: the agent can speak but not hear ` +
        `callers`
    )
  } else if (stt === "none") {
    notices.push("No speech-to-text provider: the agent can speak but not hear callers on a real carrier")
  }
  if (chosenLlm !== llm) {
    notices.push(
      `Language model provider ${chosenLlm} is not configured on this platform: the offline responder answers instead`
    )
  }
  if (chosenTts !== tts) {
    notices.push(
      `Text-to-speech provider ${chosenTts} is not configured on this platform: the built-in voice (flite) speaks ` +
        `instead`
    )
  }
  const minDelayMs = voice.endpointing?.minDelayMs ?? 300
  return {
    language: voice.language ?? "en-US",
    speechToText: { provider: stt, model: stt === chosenStt ? voice.speechToText?.model ?? null : null },
    languageModel: {
      provider: llm,
      model: llm === chosenLlm ? voice.languageModel?.model ?? null : null,
      temperature: voice.languageModel?.temperature ?? null
    },
    textToSpeech: {
      provider: tts,
      voice: tts === chosenTts ? voice.textToSpeech?.voice ?? null : null,
      model: tts === chosenTts ? voice.textToSpeech?.model ?? null : null
    },
    endpointing: { minDelayMs, maxDelayMs: Math.max(minDelayMs, voice.endpointing?.maxDelayMs ?? 2_500) },
    interruption: {
      enabled: voice.interruption?.enabled ?? true,
      minSpeechMs: voice.interruption?.minSpeechMs ?? 200,
      minWords: voice.interruption?.minWords ?? 1,
      backchannels: voice.interruption?.backchannels ?? DEFAULT_BACKCHANNELS
    },
    idle: {
      reminderAfterSeconds: voice.idle?.reminderAfterSeconds ?? 8,
      reminders: voice.idle?.reminders ?? 1,
      reminderText: voice.idle?.reminderText ?? "Are you still there?",
      goodbyeText: voice.idle?.goodbyeText ?? "It seems you've stepped away. Goodbye!"
    },
    maxCallSeconds: voice.maxCallSeconds ?? defaults.maxCallSeconds,
    tools: { endCall: voice.tools?.endCall ?? true, knowledgeLookup: voice.tools?.knowledgeLookup ?? true },
    voicemail: resolveVoicemail(voice.voicemail),
    keypad: {
      terminator: voice.keypad?.terminator === "none" ? null : voice.keypad?.terminator ?? "#",
      interDigitTimeoutMs: voice.keypad?.interDigitTimeoutMs ?? 3_000,
      maxDigits: voice.keypad?.maxDigits ?? 20,
      agentMayPress: voice.keypad?.agentMayPress ?? true
    },
    transfer: {
      numbers: voice.transfer?.numbers ?? [],
      warmMessage: voice.transfer?.warmMessage ?? DEFAULT_WARM_MESSAGE
    },
    notices
  }
}
