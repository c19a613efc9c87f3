/**
 * A live call handed to another number, as the call's entity does it (holding its lock): only a call
 * in progress, on a carrier that can; claimed in `call_transfers` first, so the carrier is asked once
 * however often the transfer is asked for; then the call's log (a `transferred` event, a transcript
 * line `[transfer] cold to +1…`) and its end, `transferred`, which is not a hang-up: the carrier
 * carries the call on. The session is billed up to that moment (the agent's part).
 */
import type { CallState } from "@voiceagent/domain/CallMachine"
import type { SessionId } from "@voiceagent/domain/Calls"
import {
  CallNotLive,
  TransferFailed,
  type TransferMode,
  type TransferReply,
  type TransferSource
} from "@voiceagent/domain/CallTransfer"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { CallLine, StoredCall } from "../CallRecords/CallSessionsRepo.js"
import type { CallTransfersRepo, StoredTransfer } from "../CallRecords/CallTransfersRepo.js"
import type { Carrier } from "../Ports/Telephony.js"

export interface TransferRequest {
  readonly toNumber: string
  readonly mode: TransferMode
  readonly source: TransferSource
}

/** What the call's entity lends a transfer; `H` is its lock, held (the holder's state). */
export interface TransferDeps<H> {
  readonly sessionId: SessionId
  readonly repo: CallTransfersRepo
  /** Runs the transfer holding the entity's lock. */
  readonly locked: <A, E>(body: (held: H) => Effect.Effect<A, E>) => Effect.Effect<A, E>
  /** The call, while this instance owns it. */
  readonly call: (held: H) => Effect.Effect<StoredCall | undefined>
  readonly carrier: (call: StoredCall) => Carrier
  readonly now: Effect.Effect<number>
  readonly addEvent: (type: string, at: number, detail: unknown) => Effect.Effect<void>
  readonly addLine: (line: CallLine) => Effect.Effect<void>
  /** Runs `Transferred` through the call's machine (the lock held). */
  readonly transferred: (held: H, at: number) => Effect.Effect<void>
  readonly replyOf: (held: H) => Effect.Effect<{
    readonly status: CallState["status"]
    readonly outcome: Extract<CallState, { status: "ENDED" }>["outcome"] | null
  }>
}

/** What a transfer's line in the transcript says. */
export const transferLine = (request: Pick<TransferRequest, "toNumber" | "mode">) =>
  `[transfer] ${request.mode} to ${request.toNumber}`

export const makeTransfer = <H>(deps: TransferDeps<H>) => {
  const answer = (held: H, made: StoredTransfer): Effect.Effect<TransferReply> =>
    Effect.map(deps.replyOf(held), (reply) => ({
      ...reply,
      toNumber: made.toNumber,
      mode: made.mode,
      source: made.source,
      at: (made.doneAt ?? made.requestedAt).getTime()
    }))

  return (request: TransferRequest): Effect.Effect<TransferReply, CallNotLive | TransferFailed> =>
    deps.locked((held) =>
      Effect.gen(function*() {
        const call = yield* deps.call(held)
        if (call === undefined) return yield* new CallNotLive()
        if (call.state.status !== "IN_PROGRESS") {
          // asked again after it was made (a retried request): the transfer it made
          const made = yield* deps.repo.find(deps.sessionId)
          if (
            Option.isSome(made) && made.value.status === "done" && made.value.toNumber === request.toNumber
          ) return yield* answer(held, made.value)
          return yield* new CallNotLive({ message: `The call is ${call.state.status}, not in progress` })
        }
        const carrier = deps.carrier(call)
        if (carrier.transfer === undefined || call.providerCallId === null) {
          return yield* new TransferFailed({ message: `A call on the ${carrier.name} carrier cannot be transferred` })
        }
        const at = yield* deps.now
        const claimed = yield* deps.repo.claim({
          sessionId: deps.sessionId,
          tenantId: call.spec.tenantId,
          ...request,
          at
        })
        if (!claimed) return yield* new TransferFailed({ message: "A transfer of this call is already under way" })
        const asked = yield* Effect.either(
          carrier.transfer(call.providerCallId, { to: request.toNumber, from: call.spec.fromNumber ?? "" })
        )
        if (asked._tag === "Left") {
          yield* deps.repo.failed(deps.sessionId, asked.left.reason)
          yield* deps.addEvent("transfer_failed", yield* deps.now, { ...request, reason: asked.left.reason })
          return yield* new TransferFailed({ message: `The carrier did not transfer the call: ${asked.left.reason}` })
        }
        const done = yield* deps.now
        yield* deps.repo.done(deps.sessionId, done)
        yield* deps.addEvent("transferred", done, request)
        yield* deps.addLine({
          speaker: "agent",
          text: transferLine(request),
          at: done,
          interrupted: false,
          latency: null
        })
        yield* deps.transferred(held, done)
        return { ...(yield* deps.replyOf(held)), ...request, at: done }
      })
    )
}
