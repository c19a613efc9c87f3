/**
 * The live call state machine, as one pure function: `QUEUED → DIALING → RINGING → IN_PROGRESS →
 * ENDED` with an outcome. Every (state, event) pair has an answer; events that arrive late or twice
 * change nothing. Side effects are returned as commands for the entity to carry out.
 */
import * as Data from "effect/Data"
import * as Schema from "effect/Schema"

export const CallStatuses = ["QUEUED", "DIALING", "RINGING", "IN_PROGRESS", "ENDED"] as const
export const CallStatus = Schema.Literal(...CallStatuses)
export type CallStatus = typeof CallStatus.Type

export const CallOutcomes = ["ANSWERED", "UNANSWERED", "BUSY", "FAILED", "CANCELED"] as const
export const CallOutcome = Schema.Literal(...CallOutcomes)
export type CallOutcome = typeof CallOutcome.Type

/** Why a call ended, when the outcome alone does not say. */
export const EndReasons = [
  "completed",
  "hangup_requested",
  "agent_hangup",
  "ring_timeout",
  "max_duration",
  "funds_exhausted",
  "busy",
  "no_answer",
  "carrier_failed",
  "dial_failed",
  "voicemail",
  "insufficient_funds",
  "concurrent_call_limit",
  "transferred"
] as const
export type EndReason = (typeof EndReasons)[number]

export type CallState =
  | { readonly status: "QUEUED" }
  | { readonly status: "DIALING"; readonly dialedAt: number }
  | { readonly status: "RINGING"; readonly dialedAt: number; readonly ringingAt: number }
  | {
    readonly status: "IN_PROGRESS"
    readonly dialedAt: number
    readonly ringingAt: number | null
    readonly answeredAt: number
  }
  | {
    readonly status: "ENDED"
    readonly outcome: CallOutcome
    readonly reason: EndReason
    readonly dialedAt: number | null
    readonly ringingAt: number | null
    readonly answeredAt: number | null
    readonly endedAt: number
  }

export type CallEvent = Data.TaggedEnum<{
  /** The entity starts dialing. */
  Dial: { readonly at: number }
  /** The carrier refused the dial request itself. */
  DialFailed: { readonly at: number }
  Ringing: { readonly at: number }
  Answered: { readonly at: number }
  Busy: { readonly at: number }
  NoAnswer: { readonly at: number }
  CarrierFailed: { readonly at: number }
  /** The carrier reports the call over (either party hung up). */
  Completed: { readonly at: number }
  RingTimeout: { readonly at: number }
  MaxDuration: { readonly at: number }
  FundsExhausted: { readonly at: number }
  HangupRequested: { readonly at: number }
  /** The agent ended the conversation (its end_call tool, the idle goodbye, its fallback line). */
  AgentHungUp: { readonly at: number }
  /** A machine answered and the agent is done with it (hung up, or left its message): see docs/voicemail.md. */
  VoicemailDone: { readonly at: number }
  /** The carrier took the call to another number: the agent's part is over, the line goes on without it. */
  Transferred: { readonly at: number }
}>
export const CallEvent = Data.taggedEnum<CallEvent>()

/** What the entity must do after a transition (matched exhaustively by the entity: `CallCommand.$match`). */
export type CallCommand = Data.TaggedEnum<{
  /** Ask the carrier to dial (an incoming call is at the carrier already: it only prepares its conversation). */
  PlaceCall: {}
  /** Hang the line up at the carrier. */
  HangUp: {}
  /** Arm the ring deadline (the dial time plus the dial timeout). */
  ArmRingTimer: {}
  /** Disarm the ring deadline; arm the maximum duration and the reservation's extension from the answer. */
  ArmMaxDurationTimer: {}
  /** Settle, and write the call's end with its call-ended outbox. */
  Finish: {}
}>
export const CallCommand = Data.taggedEnum<CallCommand>()

export interface Transition {
  readonly state: CallState
  readonly commands: ReadonlyArray<CallCommand>
  /** False when the event was ignored (late, duplicate, or not meaningful in this state). */
  readonly changed: boolean
}

const ignore = (state: CallState): Transition => ({ state, commands: [], changed: false })

const end = (
  state: Exclude<CallState, { status: "ENDED" }>,
  at: number,
  outcome: CallOutcome,
  reason: EndReason,
  hangUp: boolean
): Transition => ({
  state: {
    status: "ENDED",
    outcome,
    reason,
    dialedAt: "dialedAt" in state ? state.dialedAt : null,
    ringingAt: "ringingAt" in state ? state.ringingAt : null,
    answeredAt: "answeredAt" in state ? state.answeredAt : null,
    endedAt: at
  },
  commands: hangUp ? [CallCommand.HangUp(), CallCommand.Finish()] : [CallCommand.Finish()],
  changed: true
})

export const isLive = (state: CallState): boolean => state.status !== "ENDED"

/**
 * The latest moment the call's state knows of (its dial, ring or answer). Carriers date their events
 * coarsely (Twilio's callbacks to the second), so an event can say it came before the dial it follows.
 */
export const knownUntil = (state: CallState): number =>
  Math.max(
    "dialedAt" in state && state.dialedAt !== null ? state.dialedAt : -Infinity,
    "ringingAt" in state && state.ringingAt !== null ? state.ringingAt : -Infinity,
    "answeredAt" in state && state.answeredAt !== null ? state.answeredAt : -Infinity
  )

/** An event is taken no earlier than what the call already knows, so its timeline never runs backwards. */
export const transition = (state: CallState, event: CallEvent): Transition => {
  const floor = knownUntil(state)
  return step(state, event.at < floor ? { ...event, at: floor } : event)
}

const step = (state: CallState, event: CallEvent): Transition => {
  switch (state.status) {
    case "QUEUED":
      return CallEvent.$match(event, {
        Dial: ({ at }): Transition => ({
          state: { status: "DIALING", dialedAt: at },
          commands: [CallCommand.PlaceCall(), CallCommand.ArmRingTimer()],
          changed: true
        }),
        HangupRequested: ({ at }) => end(state, at, "CANCELED", "hangup_requested", false),
        AgentHungUp: () => ignore(state),
        VoicemailDone: () => ignore(state),
        Transferred: () => ignore(state),
        DialFailed: ({ at }) => end(state, at, "FAILED", "dial_failed", false),
        FundsExhausted: ({ at }) => end(state, at, "FAILED", "funds_exhausted", false),
        Ringing: () => ignore(state),
        Answered: () => ignore(state),
        Busy: () => ignore(state),
        NoAnswer: () => ignore(state),
        CarrierFailed: () => ignore(state),
        Completed: () => ignore(state),
        RingTimeout: () => ignore(state),
        MaxDuration: () => ignore(state)
      })
    case "DIALING":
    case "RINGING":
      return CallEvent.$match(event, {
        Dial: () => ignore(state),
        Ringing: ({ at }): Transition =>
          state.status === "DIALING"
            ? { state: { status: "RINGING", dialedAt: state.dialedAt, ringingAt: at }, commands: [], changed: true }
            : ignore(state),
        Answered: ({ at }): Transition => ({
          state: {
            status: "IN_PROGRESS",
            dialedAt: state.dialedAt,
            ringingAt: state.status === "RINGING" ? state.ringingAt : null,
            answeredAt: at
          },
          commands: [CallCommand.ArmMaxDurationTimer()],
          changed: true
        }),
        Busy: ({ at }) => end(state, at, "BUSY", "busy", false),
        NoAnswer: ({ at }) => end(state, at, "UNANSWERED", "no_answer", false),
        CarrierFailed: ({ at }) => end(state, at, "FAILED", "carrier_failed", false),
        DialFailed: ({ at }) => end(state, at, "FAILED", "dial_failed", false),
        // over before anyone answered: the callee hung up or the carrier gave up
        Completed: ({ at }) => end(state, at, "UNANSWERED", "no_answer", false),
        RingTimeout: ({ at }) => end(state, at, "UNANSWERED", "ring_timeout", true),
        MaxDuration: () => ignore(state),
        FundsExhausted: ({ at }) => end(state, at, "CANCELED", "funds_exhausted", true),
        HangupRequested: ({ at }) => end(state, at, "CANCELED", "hangup_requested", true),
        AgentHungUp: () => ignore(state),
        VoicemailDone: () => ignore(state),
        Transferred: () => ignore(state)
      })
    case "IN_PROGRESS":
      return CallEvent.$match(event, {
        Dial: () => ignore(state),
        Ringing: () => ignore(state),
        Answered: () => ignore(state),
        Busy: () => ignore(state),
        NoAnswer: () => ignore(state),
        RingTimeout: () => ignore(state),
        DialFailed: () => ignore(state),
        // a failure after the answer still leaves an answered, billable call
        CarrierFailed: ({ at }) => end(state, at, "ANSWERED", "carrier_failed", false),
        Completed: ({ at }) => end(state, at, "ANSWERED", "completed", false),
        MaxDuration: ({ at }) => end(state, at, "ANSWERED", "max_duration", true),
        FundsExhausted: ({ at }) => end(state, at, "ANSWERED", "funds_exhausted", true),
        HangupRequested: ({ at }) => end(state, at, "ANSWERED", "hangup_requested", true),
        AgentHungUp: ({ at }) => end(state, at, "ANSWERED", "agent_hangup", true),
        // nobody took the call: a voicemail is redialled and messaged like an unanswered call (still billed)
        VoicemailDone: ({ at }) => end(state, at, "UNANSWERED", "voicemail", true),
        // not hung up: the carrier carries the call on to the number it was transferred to
        Transferred: ({ at }) => end(state, at, "ANSWERED", "transferred", false)
      })
    case "ENDED":
      return ignore(state)
  }
}

// ---------------------------------------------------------------------------
// Billing rules
// ---------------------------------------------------------------------------

/** Seconds talked (from answer to end), whole seconds rounded up. */
export const talkSeconds = (state: CallState): number =>
  state.status === "ENDED" && state.answeredAt !== null
    ? Math.max(0, Math.ceil((state.endedAt - state.answeredAt) / 1000))
    : 0

/** Talk time rounded up to the billing increment. */
export const billableSeconds = (seconds: number, incrementSeconds: number): number =>
  seconds <= 0 ? 0 : Math.ceil(seconds / incrementSeconds) * incrementSeconds

/** Cost in minor units of `seconds` at `pricePerMinute` minor units, rounded up to a whole unit. */
export const costOf = (seconds: number, pricePerMinute: number): number => Math.ceil((seconds * pricePerMinute) / 60)
