/**
 * The telephony port. A carrier places and ends calls; what happens on the line comes back as
 * provider events (ringing, answered, busy, no answer, failed, completed) to the call's entity,
 * through the `CallEventSink`. Which carrier serves a voice number is chosen by its provider.
 */
import type { CallProvider, ProviderEvent, ProviderEventKind, SessionId } from "@voiceagent/domain/Calls"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { AgentPersona } from "./AgentPersona.js"
import type { CallerStep } from "./CallerScript.js"

export interface DialRequest {
  readonly sessionId: SessionId
  readonly provider: CallProvider
  readonly from: string
  readonly to: string
  readonly agent: AgentPersona
  /**
   * Where the carrier streams the call's audio once it is answered, and the stream's one-use token:
   * the media server of the runner that owns the call. Without it (no media server in the process),
   * a network carrier plays the greeting and keeps the line open, as before the conversation engine.
   */
  readonly media?: { readonly streamUrl: string; readonly token: string } | undefined
  /** The simulated carrier's callee follows this script (from the call's metadata; see `scriptFromMetadata`). */
  readonly callerScript?: ReadonlyArray<CallerStep> | undefined
  /**
   * Ask the carrier's answering-machine detection for a verdict
   * (docs/voicemail.md); only a carrier with `machineDetection`.
   */
  readonly machineDetection?: boolean | undefined
}

export class DialRefused extends Data.TaggedError("DialRefused")<{ readonly reason: string }> {}

/** Where a call stands by the carrier's own record, with the carrier's times (epoch ms) when it gives them. */
export interface CarrierCallStatus {
  readonly phase: ProviderEventKind | "dialing"
  readonly answeredAt?: number | undefined
  readonly endedAt?: number | undefined
}

export interface Carrier {
  readonly name: string
  /** The carrier detects answering machines itself and reports its verdict to the call (`LiveCall.MachineDetected`). */
  readonly machineDetection?: boolean | undefined
  readonly dial: (request: DialRequest) => Effect.Effect<{ readonly providerCallId: string }, DialRefused>
  /** Ends the call; `reason` is the call's end reason, for a carrier that tells the caller (a web call's `end`). */
  readonly hangup: (providerCallId: string, reason?: string) => Effect.Effect<void>
  /**
   * The carrier's view of a call, used when a call's entity restarts (after a crash, on another
   * runner): a call that ended meanwhile is billed by the carrier's times, not by when it was noticed.
   * `None` when the carrier knows no such call.
   */
  readonly status: (providerCallId: string) => Effect.Effect<Option.Option<CarrierCallStatus>>
  /**
   * The carrier's id of the call it placed for `sessionId`, for a carrier that can look a call up by
   * the platform's reference (the simulated carrier keeps it with its record): a call whose runner died
   * between the carrier's answer to the dial and its own record of the id is found again. Absent where
   * the carrier's callbacks bring the id (Twilio, Telnyx).
   */
  readonly callOf?: ((sessionId: SessionId) => Effect.Effect<Option.Option<string>>) | undefined
  /**
   * Answers an incoming call with its audio streamed to `media` (Telnyx's `answer` command). Absent
   * for a carrier whose incoming-call webhook is answered with instructions (Twilio's TwiML).
   */
  readonly answer?: ((request: AnswerRequest) => Effect.Effect<void, DialRefused>) | undefined
  /** Turns an incoming call away (funds, concurrency); absent where the webhook's answer does it. */
  readonly refuse?: ((providerCallId: string, reason: string) => Effect.Effect<void>) | undefined
  /**
   * Hands the answered call to `to` (E.164), `from` being the call's own number (the caller id the
   * carrier shows there); the carrier carries the call on, the platform's media stream ends. A
   * carrier that cannot transfer (a web call) has none.
   */
  readonly transfer?:
    | ((providerCallId: string, request: TransferRequest) => Effect.Effect<void, TransferRefused>)
    | undefined
  /**
   * Streams an answered call's audio to `media` again (Telnyx's `streaming_start`): a call resumed by a
   * new owner (its runner died) has lost its stream with that runner. Absent where the carrier comes back
   * by itself (Twilio's `<Redirect>` after `<Connect>`).
   */
  readonly restream?:
    | ((providerCallId: string, media: { readonly streamUrl: string; readonly token: string }) => Effect.Effect<void>)
    | undefined
}

export interface AnswerRequest {
  readonly sessionId: SessionId
  readonly providerCallId: string
  readonly media: { readonly streamUrl: string; readonly token: string } | undefined
}

/** What a caller turned away (funds, concurrency) hears before the carrier hangs up. */
export const INBOUND_REFUSED_MESSAGE = "Sorry, we cannot take your call right now. Please try again later. Goodbye."

export interface TransferRequest {
  readonly to: string
  readonly from: string
}

export class TransferRefused extends Data.TaggedError("TransferRefused")<{ readonly reason: string }> {}

export class Telephony extends Context.Tag("Runner/Telephony")<Telephony, {
  readonly carrierFor: (provider: CallProvider) => Carrier
}>() {}

/** Where carriers report what happened on a call. */
export class CallEventSink extends Context.Tag("Runner/CallEventSink")<CallEventSink, {
  readonly report: (sessionId: SessionId, event: ProviderEvent) => Effect.Effect<void>
}>() {}
