/**
 * Voicemail (answering-machine) detection on outbound calls: the agent's choices (`voice.voicemail`),
 * who answered a call, and what became of a voicemail. See docs/voicemail.md.
 */
import * as Schema from "effect/Schema"
import { VOICE_LIMITS } from "./Limits.js"

/**
 * off: no detection; carrier: the carrier's own (Twilio, Telnyx),
 * ours from the audio where it has none; audio: always ours.
 */
export const VoicemailDetections = ["off", "carrier", "audio"] as const
export const VoicemailDetection = Schema.Literal(...VoicemailDetections)
export type VoicemailDetection = typeof VoicemailDetection.Type

export const VoicemailPolicies = ["hangup", "leave_message"] as const
export const VoicemailPolicy = Schema.Literal(...VoicemailPolicies)
export type VoicemailPolicy = typeof VoicemailPolicy.Type

export const AnsweredBy = Schema.Literal("human", "machine", "unknown")
export type AnsweredBy = typeof AnsweredBy.Type

/** What the agent did on reaching a machine. */
export const VoicemailResult = Schema.Literal("hung_up", "message_left")
export type VoicemailResult = typeof VoicemailResult.Type

export const DEFAULT_VOICEMAIL_MESSAGE = "Sorry we missed you. We will call you again later. Goodbye."

/** The agent's voicemail choices, each optional (the `voice.voicemail` group). */
export const voicemailFields = {
  detection: VoicemailDetection.annotations({
    description:
      "off (default), carrier (the carrier's answering-machine detection; ours from the audio where it has none) or " +
      "audio (always ours)"
  }),
  policy: VoicemailPolicy.annotations({
    description: "On a machine: hangup (default), or leave_message (after the beep, not interruptible, then hang up)"
  }),
  message: Schema.String.pipe(
    Schema.filter((s) => s.trim().length >= 1 && s.length <= VOICE_LIMITS.voicemailMessage, {
      message: () => `voicemail.message must be 1 to ${VOICE_LIMITS.voicemailMessage} characters`
    })
  ).annotations({ description: "What leave_message says after the beep (default: a short call-back notice)" })
}

export const ResolvedVoicemail = Schema.Struct({
  detection: VoicemailDetection,
  policy: VoicemailPolicy,
  message: Schema.String
})
export type ResolvedVoicemail = typeof ResolvedVoicemail.Type

export const resolveVoicemail = (
  chosen: {
    readonly detection?: VoicemailDetection | undefined
    readonly policy?: VoicemailPolicy | undefined
    readonly message?: string | undefined
  } | undefined
): ResolvedVoicemail => ({
  detection: chosen?.detection ?? "off",
  policy: chosen?.policy ?? "hangup",
  message: chosen?.message ?? DEFAULT_VOICEMAIL_MESSAGE
})

/**
 * A verdict on who answered, from the carrier or our own detector. `messageEnded`: the greeting is
 * over (its beep, or its silence), so a message can be recorded now.
 */
export const MachineVerdict = Schema.Struct({
  verdictId: Schema.String.annotations({ description: "Unique per verdict: a redelivery is applied once" }),
  answeredBy: AnsweredBy,
  messageEnded: Schema.Boolean,
  source: Schema.Literal("twilio", "telnyx", "audio"),
  /** What the source said, as it said it (Twilio's AnsweredBy, Telnyx's result). */
  raw: Schema.String,
  at: Schema.Number
})
export type MachineVerdict = typeof MachineVerdict.Type
