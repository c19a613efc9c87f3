/**
 * Handing a live call to another number (our extension, docs/calls.md): by the agent's
 * `transfer_call` tool (to a number its settings allow) or by `POST /calls/{sessionId}/transfer`.
 * The carrier takes the call on; the agent's part ends there, and so does the session's billing
 * (`endReason` `transferred`). A call is transferred at most once.
 */
import * as Schema from "effect/Schema"
import { errorFields, type HttpError, httpError } from "./ApiError.js"
import { CallOutcome, CallStatus } from "./CallMachine.js"
import { E164 } from "./Phone.js"
import { Timestamp } from "./Timestamp.js"

/** cold: at once; warm: after the agent's hand-off line (the agent's tool only). */
export const TransferMode = Schema.Literal("cold", "warm")
export type TransferMode = typeof TransferMode.Type

/** Who asked for the transfer. */
export const TransferSource = Schema.Literal("agent", "api")
export type TransferSource = typeof TransferSource.Type

export class TransferCallRequest extends Schema.Class<TransferCallRequest>("TransferCallRequest")({
  toNumber: E164.annotations({ description: "Where the carrier takes the call (E.164)" })
}) {}

export class CallTransferRecord extends Schema.Class<CallTransferRecord>("CallTransferRecord")({
  toNumber: Schema.String,
  mode: TransferMode,
  source: TransferSource,
  at: Timestamp
}) {}

export class TransferCallResult extends Schema.Class<TransferCallResult>("TransferCallResult")({
  sessionId: Schema.UUID,
  status: CallStatus,
  outcome: Schema.NullOr(CallOutcome),
  transfer: CallTransferRecord
}) {}

export class CallNotLive extends Schema.TaggedError<CallNotLive>()(
  "CallNotLive",
  errorFields("The call is not in progress")
) {
  static readonly http: HttpError<CallNotLive> = httpError(this, { status: 409, code: "CALL_NOT_LIVE" })
}

export class TransferFailed extends Schema.TaggedError<TransferFailed>()(
  "TransferFailed",
  errorFields("The carrier did not transfer the call")
) {
  static readonly http: HttpError<TransferFailed> = httpError(this, { status: 409, code: "TRANSFER_FAILED" })
}

/** The entity's answer to a transfer: the call's state and the transfer it made (or had made before). */
export const TransferReply = Schema.Struct({
  status: CallStatus,
  outcome: Schema.NullOr(CallOutcome),
  toNumber: Schema.String,
  mode: TransferMode,
  source: TransferSource,
  at: Schema.Number
})
export type TransferReply = typeof TransferReply.Type
