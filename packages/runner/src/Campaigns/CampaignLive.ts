/**
 * The `Campaign` entity: one per voice campaign. It applies the pure `CampaignMachine` to every
 * command inside the transaction that writes the campaign row, and runs the campaign's timer and
 * dial loop as a fiber of the entity.
 *
 * The loop keeps nothing it cannot rebuild: the scheduled time, the contact snapshot and every
 * attempt are rows. When the entity starts on another runner (the supervisor wakes it), the loop
 * reads them back, finishes claims a crash left open (by their fixed session ids, so a dial
 * already placed is not placed again), and carries on.
 *
 * A pass claims its contacts in one statement (`CampaignsRepo.claimBatch`): the sessions are
 * inserted QUEUED with their reservations, the wallet's funds and the tenant's call limit checked in
 * it. Dialing waits, all at once, for: the call window (sleeping until its exact next opening), each
 * contact's own local hours when the campaign asks for them (a due contact outside them is held
 * until the first instant its hours and the call window overlap, while the others keep dialing), the
 * campaign's `maxConcurrentCalls`, the tenant's concurrent-call limit (the claim takes no more; the
 * loop backs off), the voice number's pace (`DialPacer`), and the wallet (short of funds pauses the
 * campaign with the reason `INSUFFICIENT_FUNDS`).
 */
import * as Entity from "@effect/cluster/Entity"
import * as EntityId from "@effect/cluster/EntityId"
import * as Sharding from "@effect/cluster/Sharding"
import { costOf } from "@voiceagent/domain/CallMachine"
import { type CallSpec, LiveCallEntity, type SessionId } from "@voiceagent/domain/Calls"
import * as CallWindow from "@voiceagent/domain/CallWindow"
import {
  type CampaignCommand,
  CampaignCommand as Command,
  type CampaignStatus,
  type FailureReason,
  isActive,
  transition
} from "@voiceagent/domain/CampaignMachine"
import {
  type Campaign,
  type CampaignAttemptId,
  CampaignEntity,
  type CampaignId,
  CampaignNotFound,
  CampaignStateConflict
} from "@voiceagent/domain/Campaigns"
import type { ContactId, TenantId } from "@voiceagent/domain/Ids"
import { recipientWindow } from "@voiceagent/domain/RecipientHours"
import { TenantEntity } from "@voiceagent/domain/TenantEntity"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberHandle from "effect/FiberHandle"
import * as FiberMap from "effect/FiberMap"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as SynchronizedRef from "effect/SynchronizedRef"
import { v7 as uuidv7 } from "uuid"
import { Ledger } from "../Billing/Ledger.js"
import type { CallReservation } from "../CallRecords/CallSessionsRepo.js"
import { CallSpecs } from "../CallRecords/CallSpecs.js"
import { deliver } from "../Cluster/Deliver.js"
import { withEntityHandlers } from "../Cluster/EntityHandlers.js"
import { failpoint } from "../Failpoints.js"
import { campaignsDialing, countCampaignDial, countWalletOperation } from "../Observability/PlatformMetrics.js"
import {
  CampaignsRepo,
  type ClaimRequest,
  type DueContact,
  type Hold,
  type References,
  shortfall,
  stateOf
} from "./CampaignsRepo.js"
import { DialPacer } from "./DialPacer.js"

export interface DialerOptions {
  /** Longest the loop sleeps without looking at its tables again (a lost wake-up costs at most this). */
  readonly idlePoll: Duration.DurationInput
  /** How long to wait when the tenant is at its concurrent-call limit. */
  readonly tenantBusyBackoff: Duration.DurationInput
  /** How long to wait after an unexpected failure of the loop. */
  readonly errorBackoff: Duration.DurationInput
}

export const defaultDialerOptions: DialerOptions = {
  idlePoll: "30 seconds",
  tenantBusyBackoff: "5 seconds",
  errorBackoff: "5 seconds"
}

export class DialerSettings extends Context.Tag("Campaigns/DialerSettings")<DialerSettings, DialerOptions>() {
  static readonly layer = (options: DialerOptions = defaultDialerOptions) => Layer.succeed(DialerSettings, options)
}

type Step = "continue" | "stop"

/** A command's outcome, and what is known after it. */
type Applied = readonly [Either.Either<Campaign, CampaignStateConflict>, Known]

/** What the entity knows of its campaign. Commands and the loop's claims change or read it under the ref's lock. */
interface Known {
  /** The stored status, as this entity (its only writer while active) last wrote or read it. */
  readonly status: CampaignStatus | undefined
  /**
   * The campaign's row as this entity last wrote or read it, for the loop's passes (none yet: read at
   * the next). Only the status moves while a campaign is active, and only by this entity's commands,
   * which keep it here; the counters the calls move are not read from it.
   */
  readonly row: Option.Option<Campaign>
  /** Another instance owns the campaign: this one's loop stops. */
  readonly superseded: boolean
  /** A dial loop runs: set when one starts, cleared by the loop as it hands back (see `handBack`). */
  readonly looping: boolean
}

type VoiceNumber = Parameters<CallSpecs["make"]>[0]["voiceNumber"]
type SpecBuilder = Effect.Effect.Success<ReturnType<CallSpecs["forTenant"]>>

/** Calls of one campaign being started at once (each waits on its reservation and first writes). */
const DIAL_PARALLELISM = 8

/** Due contacts looked at per pass when some may be held for their local hours (held ones are set aside in bulk). */
const HOLD_BATCH = 200

const windowOf = (c: Campaign): CallWindow.CallWindow => ({
  timezone: c.timezone,
  start: c.callWindowStart,
  end: c.callWindowEnd,
  days: c.callDays
})

/**
 * Whether the contact may be dialed at `at` under the campaign's recipient hours: `"now"`, not before
 * an instant (the first at which the contact's hours and the call window overlap), or `"never"`
 * (they do not overlap in the week ahead, or no zone is known for the number). Always `"now"` when
 * the campaign does not ask for recipient hours.
 */
const recipientTurn = (
  c: Campaign,
  window: CallWindow.CallWindow,
  phone: string,
  at: number
): "now" | "never" | number => {
  if (!c.recipientCallingHours.enabled) return "now"
  const w = recipientWindow(phone, at, { hours: c.recipientCallingHours, within: [window] })
  return w.open ? "now" : w.opensAt ?? "never"
}

export const CampaignLive = CampaignEntity.toLayer(
  Effect.gen(function*() {
    const address = yield* Entity.CurrentAddress
    const id = address.entityId as string as CampaignId
    const logged = yield* withEntityHandlers
    const repo = yield* CampaignsRepo
    const ledger = yield* Ledger
    const tenants = yield* TenantEntity.client
    const specs = yield* CallSpecs
    const pacer = yield* DialPacer
    const options = yield* DialerSettings
    const calls = yield* LiveCallEntity.client
    const entityContext = yield* Effect.context<Sharding.Sharding | Entity.CurrentAddress>()
    const keepAlive = (enabled: boolean) => Entity.keepAlive(enabled).pipe(Effect.provide(entityContext))

    const dialSlots = yield* Effect.makeSemaphore(DIAL_PARALLELISM)
    const wakeUps = yield* Queue.sliding<void>(1)
    const loop = yield* FiberHandle.make<void, never>()
    /** The next pass looks for claims left open (set as a loop starts, and after a pass that failed). */
    const recoverNext = yield* Ref.make(true)
    // This instance owns the campaign from here on: one left running on a runner that lost the shard
    // can no longer change its state or claim its contacts, and its loop stops at its next try.
    const epoch = Option.getOrElse(yield* repo.claimOwnership(id), () => 0)
    const statusOf = (found: Option.Option<Campaign>) => Option.getOrUndefined(Option.map(found, (c) => c.status))
    const stored = yield* repo.find(null, id)
    const known = yield* SynchronizedRef.make<Known>({
      status: statusOf(stored),
      row: stored,
      superseded: false,
      looping: false
    })
    /** Runs `effect` while no command or other claim does (the ref's lock), leaving what is known as it is. */
    const locked = <A, E>(effect: Effect.Effect<A, E>) =>
      SynchronizedRef.modifyEffect(known, (k) => Effect.map(effect, (a) => [a, k] as const))

    const wake = Queue.offer(wakeUps, undefined).pipe(Effect.asVoid)

    /** Sleeps up to `millis` (capped at the idle poll); a wake-up ends it early. */
    const waitFor = (millis: number) =>
      Effect.raceFirst(
        Queue.take(wakeUps),
        Effect.sleep(Math.max(0, Math.min(millis, Duration.toMillis(Duration.decode(options.idlePoll)))))
      ).pipe(Effect.asVoid)

    /**
     * Applies a command in one transaction, under the ref's lock: lock the row, run the machine, write
     * the new state.
     */
    const apply = (
      tenantId: TenantId | null,
      command: (campaign: Campaign, now: number) => CampaignCommand,
      also: (campaign: Campaign, now: number) => Effect.Effect<unknown> = () => Effect.void
    ) =>
      SynchronizedRef.modifyEffect(known, (k) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const found = yield* repo.find(tenantId, id, { lock: true })
          if (Option.isNone(found)) return yield* new CampaignNotFound()
          const next = transition(stateOf(found.value), command(found.value, now))
          if (Either.isLeft(next)) {
            return yield* new CampaignStateConflict({
              message: next.left.message,
              details: { status: next.left.from, allowedFrom: next.left.allowedFrom }
            })
          }
          const written = yield* repo.writeState(id, epoch, next.right, now)
          if (Option.isNone(written)) {
            const moved = new CampaignStateConflict({
              message: "The campaign is moving to another runner; try again",
              details: { status: found.value.status }
            })
            return [Either.left(moved), { ...k, superseded: true }] as Applied
          }
          yield* also(written.value, now)
          return [Either.right(written.value), { ...k, status: written.value.status, row: written }] as Applied
        }).pipe(repo.withTransaction, Effect.catchTag("SqlError", Effect.die))).pipe(
          Effect.flatMap((applied) => applied)
        )

    const reply = (c: Campaign) => ({ status: c.status, statusReason: c.statusReason })

    // -----------------------------------------------------------------------
    // The loop
    // -----------------------------------------------------------------------

    const fail = (reason: FailureReason) =>
      apply(null, () => Command.Fail({ reason }), () => repo.cancelPending(id)).pipe(
        Effect.tap(() => Effect.logWarning(`campaign ${id} failed: ${reason}`)),
        Effect.ignore
      )

    /** The SCHEDULED time has come: snapshot the list and start dialing. */
    const startDialing = apply(null, (_, now) => Command.Start({ now }), (c, now) => repo.snapshot(c, now)).pipe(
      Effect.ignore
    )

    /** The call's spec for a contact of the campaign (the tenant's prices read once a pass: `specFor`). */
    const specOf = (
      c: Campaign,
      specFor: SpecBuilder,
      voiceNumber: VoiceNumber,
      attemptId: CampaignAttemptId,
      contact: {
        readonly contactId: ContactId
        readonly phoneNumber: string
      }
    ) =>
      specFor({
        agentId: c.agentId,
        voiceNumber,
        toNumber: contact.phoneNumber,
        customerId: contact.contactId,
        campaignId: id,
        campaignAttemptId: attemptId,
        metadata: { ...c.metadata, campaignId: id, campaignName: c.name },
        dialTimeoutSeconds: c.dialTimeout
      })

    /**
     * Starts a claimed attempt's call. The session id was fixed at the claim, and the `LiveCall`
     * entity's `Start` is idempotent on it: a session the claim inserted (QUEUED, reserved) is loaded
     * and dialled, one already past QUEUED is not dialled again, and one missing (a claim made before
     * claims inserted sessions) is inserted with its reservation. Sending it again (after a crash,
     * `recoverClaims`) never dials twice.
     */
    const place = (attempt: { readonly id: CampaignAttemptId; readonly sessionId: string }, spec: CallSpec) =>
      Effect.gen(function*() {
        const started = yield* deliver(calls(attempt.sessionId as SessionId).Start({ spec })).pipe(
          Effect.as("dialed" as const),
          Effect.catchTags({
            InsufficientFunds: () => Effect.succeed("no_funds" as const),
            ConcurrentCallLimit: () => Effect.succeed("tenant_busy" as const)
          })
        )
        yield* countCampaignDial(started)
        // the call's `DIALING` write recorded the attempt's dial (a claimed call's `Start` answers after
        // it); a crash here loses nothing. The point's name says whether the call's entity runs on this
        // runner or another
        if (started === "dialed") {
          yield* failpoint(
            Effect.map(
              Sharding.Sharding,
              (sharding) =>
                sharding.hasShardId(sharding.getShardId(EntityId.make(attempt.sessionId), "default"))
                  ? "campaign.after-call-start.local-call"
                  : "campaign.after-call-start.remote-call"
            ).pipe(Effect.provide(entityContext))
          )
        }
        if (started === "dialed") return "dialed" as const
        yield* repo.unclaim(id, attempt.id)
        return started
      })

    /** No funds for the next call: the campaign pauses itself, visibly, until it is resumed. */
    const pauseForFunds = apply(null, () => Command.Pause({ reason: "INSUFFICIENT_FUNDS" })).pipe(
      Effect.tap(() => Effect.logWarning(`campaign ${id} paused: the wallet cannot cover another call`)),
      Effect.ignore
    )

    /**
     * Claims left open by a crash (or a lost `Start`): each is started again under its session id. A
     * session still QUEUED is dialled now (QUEUED was never handed to the carrier); one past it is
     * not dialled again, only recorded as dialed.
     */
    const recoverClaims = (c: Campaign, voiceNumber: VoiceNumber, specFor: SpecBuilder) =>
      Effect.gen(function*() {
        const open = yield* repo.openClaims(id)
        for (const claim of open) {
          const result = yield* place(claim, specOf(c, specFor, voiceNumber, claim.id, claim))
          if (result === "no_funds") yield* pauseForFunds
          if (result !== "dialed") return result
        }
        return "ok" as const
      })

    /**
     * The pass's claim, one statement (`CampaignsRepo.claimBatch`) for the contacts it may dial now:
     * the wallet's funds and the tenant's call limit checked in it, the sessions inserted QUEUED with
     * their reservations. A shortfall of funds or of the limit may be calls ended and not yet settled
     * (a flush lost with its runner): the tenant settles them and the claim is tried once more.
     */
    const claimNow = (c: Campaign, requests: ReadonlyArray<ClaimRequest>, reservation: CallReservation) =>
      Effect.gen(function*() {
        const once = SynchronizedRef.modifyEffect(known, (k) =>
          k.status === "RUNNING" && !k.superseded
            ? Clock.currentTimeMillis.pipe(
              Effect.flatMap((at) =>
                countWalletOperation("reserve")(repo.claimBatch(c, epoch, requests, at, reservation))
              ),
              Effect.map((batch) => [batch, k] as const)
            )
            : Effect.succeed([undefined, k] as const))
        let batch = yield* once
        if (batch !== undefined && batch.available === null) {
          // the tenant's wallet's first use: the claim needs its row to lock
          yield* ledger.ensureWallet(c.tenantId)
          batch = yield* once
        }
        if (
          batch !== undefined && batch.claimed.length === 0 &&
          shortfall(batch, requests.length, reservation) !== undefined
        ) {
          const flushed = yield* deliver(tenants(c.tenantId).SettleEnded()).pipe(
            Effect.orElseSucceed(() => ({ settled: 0 }))
          )
          if (flushed.settled > 0) batch = yield* once
        }
        return batch
      })

    /** The campaign's voice number, or why the campaign can no longer dial (agent or number gone). */
    const usableOf = ({ agentActive, voiceNumber }: References) => {
      if (agentActive === null) return Either.left<FailureReason>("AGENT_NOT_FOUND")
      if (!agentActive) return Either.left<FailureReason>("AGENT_INACTIVE")
      if (Option.isNone(voiceNumber)) return Either.left<FailureReason>("VOICE_NUMBER_REMOVED")
      return Either.right(voiceNumber.value)
    }

    /** The same, read on its own: one statement. */
    const usable = (c: Campaign) => Effect.map(repo.references(c), usableOf)

    const dialStep = (c: Campaign): Effect.Effect<Step> =>
      Effect.gen(function*() {
        // the tenant's prices, read once a pass
        const specFor = yield* specs.forTenant(c.tenantId)

        // claims a crash or a lost `Start` left open: looked for when the loop starts and after a failed pass
        if (yield* Ref.getAndSet(recoverNext, false)) {
          const references = yield* usable(c).pipe(Effect.onError(() => Ref.set(recoverNext, true)))
          if (Either.isLeft(references)) {
            yield* Ref.set(recoverNext, true)
            return yield* Effect.as(fail(references.left), "continue" as const)
          }
          const recovered = yield* recoverClaims(c, references.right, specFor).pipe(
            Effect.onError(() => Ref.set(recoverNext, true))
          )
          if (recovered === "tenant_busy") {
            yield* Ref.set(recoverNext, true)
            return yield* Effect.as(waitFor(Duration.toMillis(options.tenantBusyBackoff)), "continue" as const)
          }
          if (recovered === "no_funds") return yield* Effect.as(Ref.set(recoverNext, true), "continue" as const)
        }

        const window = windowOf(c)
        const now = yield* Clock.currentTimeMillis
        // the pass's due contacts (up to a second of the number's pace, or a batch to sort by local hours)
        // with the campaign's workload and its agent and voice number, in one statement
        const work = yield* repo.pass(
          c,
          now,
          c.recipientCallingHours.enabled ? HOLD_BATCH : pacer.perSecond,
          !c.recipientCallingHours.enabled
        )
        const references = usableOf(work)
        if (Either.isLeft(references)) return yield* Effect.as(fail(references.left), "continue" as const)
        const voiceNumber = references.right
        if (work.pending === 0 && work.open === 0) {
          yield* apply(null, (_, at) => Command.Complete({ now: at })).pipe(Effect.ignore)
          return "continue"
        }
        if (!CallWindow.isOpen(window, now)) {
          const opens = CallWindow.nextOpening(window, now)
          yield* waitFor(opens === undefined ? Infinity : opens - now)
          return "continue"
        }
        const capacity = c.maxConcurrentCalls - work.open
        if (capacity <= 0) return yield* Effect.as(waitFor(Infinity), "continue" as const)
        const looked = work.due
        // contacts outside their own hours wait for their next opening (their next_attempt_at moves
        // there), so the next pass, and the sleep until the earliest due, see only what may be dialed
        const due: Array<DueContact> = []
        const holds: Array<Hold> = []
        for (const contact of looked) {
          const turn = contact.dnc ? "now" : recipientTurn(c, window, contact.phoneNumber, now)
          if (turn === "now") due.push(contact)
          else if (turn === "never") {
            yield* repo.skip(c, contact.contactId, now, "NO_CALLING_HOURS")
            yield* countCampaignDial("skipped_no_calling_hours")
          } else holds.push({ contactId: contact.contactId, until: turn })
        }
        yield* repo.hold(id, holds)
        if (holds.length > 0) yield* countCampaignDial("held_local_hours", holds.length)
        if (due.length === 0) {
          if (looked.length > 0) return "continue"
          const closes = CallWindow.closesAt(window, now) ?? Infinity
          const next = work.nextDue === null ? Infinity : work.nextDue.getTime()
          yield* waitFor(Math.min(next, closes) - now)
          return "continue"
        }
        // do-not-call numbers are skipped; the others are claimed at once, up to a second's worth of the
        // number's pace (so a claim runs ahead of its dial by at most that)
        const dialable: Array<DueContact> = []
        for (const contact of due.slice(0, capacity)) {
          if (!contact.dnc) {
            dialable.push(contact)
            continue
          }
          yield* repo.skip(c, contact.contactId, yield* Clock.currentTimeMillis)
          yield* countCampaignDial("skipped_dnc")
        }
        const wanted = dialable.slice(0, pacer.perSecond)
        if (wanted.length === 0) return "continue"
        const requests: Array<ClaimRequest> = wanted.map((contact) => {
          const attemptId = uuidv7() as CampaignAttemptId
          return {
            contactId: contact.contactId,
            attemptId,
            sessionId: uuidv7(),
            spec: specOf(c, specFor, voiceNumber, attemptId, contact)
          }
        })
        const first = requests[0]!.spec
        const reservation: CallReservation = {
          amount: costOf(first.reservationChunkSeconds, first.voicePerMinute),
          concurrencyLimit: first.concurrencyLimit
        }
        // the first dial's slot of the number's pace comes before the claim: a pass claims when it may
        // dial, so a claim is ahead of its dial by at most the rest of that second
        const paced = yield* pacer.run(c.voiceNumberId, requests.length)
        yield* paced.next
        // the wait for the slot may have been long (a second at 1 dial/s): the agent or the number may
        // have gone meanwhile. The claim checks them in its statement and takes nothing then
        let checkedAt = yield* Clock.currentTimeMillis
        const batch = yield* claimNow(c, requests, reservation)
        if (batch === undefined) return "continue"
        const still = usableOf({
          agentActive: batch.agentActive,
          voiceNumber: batch.numberPresent ? Option.some(voiceNumber) : Option.none()
        })
        if (Either.isLeft(still)) return yield* Effect.as(fail(still.left), "continue" as const)
        if (!batch.owned) {
          // not running any more, or not ours: a newer instance owns the campaign
          // (the row is read again at the next pass either way)
          const elsewhere = yield* repo.ownedElsewhere(id, epoch)
          yield* SynchronizedRef.update(
            known,
            (k) => ({ ...k, superseded: k.superseded || elsewhere, row: Option.none() })
          )
          return "continue"
        }
        yield* failpoint<never>("campaign.after-claim")
        const short = shortfall(batch, requests.length, reservation)
        const byContact = new Map(wanted.map((contact) => [contact.contactId as string, contact]))
        const specBySession = new Map(requests.map((r) => [r.sessionId, r.spec]))

        // Each claimed call starts at its slot of the number's pace, up to DIAL_PARALLELISM at once. One
        // that may not start after all (paused, window closed, the contact's hours closed meanwhile)
        // is unclaimed with the rest in one statement. The first start refused (funds, the tenant's
        // limit) completes `halt`, and no further one begins.
        const halt = yield* Deferred.make<"no_funds" | "tenant_busy">()
        const placing = yield* FiberMap.make<string, unknown, never>()
        const leftovers: Array<{ sessionId: string; contactId: ContactId; until?: number }> = []
        let gone: FailureReason | undefined
        for (const [i, claim] of batch.claimed.entries()) {
          const contact = byContact.get(claim.contactId)!
          if (i > 0 && !(yield* Deferred.isDone(halt))) yield* Effect.raceFirst(paced.next, Deferred.await(halt))
          const at = yield* Clock.currentTimeMillis
          const halted = yield* Deferred.isDone(halt)
          // the batch's dials may be paced apart: when time has passed since the last look, the agent
          // or the number may have gone (with lifted limits a batch dials in one instant and looks once)
          if (at - checkedAt >= 1000 && !halted) {
            const still = yield* usable(c)
            if (Either.isLeft(still)) gone = still.left
            checkedAt = at
          }
          const k = yield* SynchronizedRef.get(known)
          if (
            !CallWindow.isOpen(window, at) || halted || gone !== undefined || k.status !== "RUNNING" || k.superseded
          ) {
            leftovers.push(
              ...batch.claimed.slice(i).map((left) => ({ sessionId: left.sessionId, contactId: left.contactId }))
            )
            break
          }
          // the pace may have carried the batch past the contact's local closing time
          const turn = recipientTurn(c, window, contact.phoneNumber, at)
          if (turn !== "now") {
            leftovers.push({
              sessionId: claim.sessionId,
              contactId: claim.contactId,
              until: turn === "never" ? at : turn
            })
            continue
          }
          yield* FiberMap.run(
            placing,
            claim.sessionId,
            dialSlots.withPermits(1)(place(claim, specBySession.get(claim.sessionId)!)).pipe(
              Effect.tap((result) => result === "dialed" ? Effect.void : Deferred.succeed(halt, result))
            )
          )
        }
        yield* FiberMap.awaitEmpty(placing)
        yield* locked(repo.unclaimBatch(c, leftovers))
        if (gone !== undefined) return yield* Effect.as(fail(gone), "continue" as const)
        const stopped = (yield* Deferred.isDone(halt)) ? yield* Deferred.await(halt) : short
        if (stopped === "no_funds") yield* pauseForFunds
        if (stopped === "tenant_busy") yield* waitFor(Duration.toMillis(options.tenantBusyBackoff))
        return "continue"
      }).pipe(Effect.scoped)

    const step: Effect.Effect<Step> = Effect.gen(function*() {
      // under the lock: a command's transaction has committed, and the known status agrees with the row
      // (read when this entity has none of its own)
      const [found, superseded] = yield* SynchronizedRef.modifyEffect(known, (k) =>
        Option.isSome(k.row)
          ? Effect.succeed([[k.row, k.superseded] as const, k] as const)
          : Effect.map(repo.find(null, id), (found) =>
            [[found, k.superseded] as const, { ...k, status: statusOf(found), row: found }] as const))
      if (Option.isNone(found) || superseded) return "stop"
      const c = found.value
      switch (c.status) {
        case "SCHEDULED": {
          const now = yield* Clock.currentTimeMillis
          const at = c.scheduledAt?.getTime() ?? now
          if (at > now) {
            yield* waitFor(at - now)
            return "continue"
          }
          yield* startDialing
          return "continue"
        }
        case "RUNNING":
          return yield* dialStep(c)
        default:
          return "stop"
      }
    }).pipe(
      Effect.catchAllCause((cause) =>
        Effect.logError(`campaign ${id}: dial loop failed; retrying`, cause).pipe(
          Effect.zipRight(Ref.set(recoverNext, true)),
          Effect.zipRight(waitFor(Duration.toMillis(options.errorBackoff))),
          Effect.as("continue" as const)
        )
      )
    )

    /**
     * Ends the loop when the campaign has no work left for it. The check and the hand-back are one step
     * under the ref's lock: a command that made the campaign active again either sees `looping` cleared
     * (and starts a new loop) or is seen here.
     */
    const handBack = SynchronizedRef.modify(
      known,
      (k): readonly [boolean, Known] =>
        !k.superseded && k.status !== undefined && isActive(k.status) ? [false, k] : [true, { ...k, looping: false }]
    )

    const runLoop: Effect.Effect<void> = Effect.gen(function*() {
      yield* Ref.set(recoverNext, true)
      while (true) {
        yield* keepAlive(true)
        while ((yield* step) === "continue") {
          // next step
        }
        yield* keepAlive(false)
        if (yield* handBack) return
      }
    }).pipe(
      (body) =>
        Effect.acquireUseRelease(
          Metric.increment(campaignsDialing),
          () => body,
          () => Metric.incrementBy(campaignsDialing, -1)
        ),
      // a loop that died (a defect outside a step's own recovery) hands back too, so the next command,
      // Wake or supervisor pass starts a new one instead of waking a dead one; an interrupted loop does
      // not: it was replaced, or its entity is stopping
      Effect.onExit((exit) =>
        Exit.isFailure(exit) && !Exit.isInterrupted(exit)
          ? Effect.zipRight(
            Effect.logError(`campaign ${id}: dial loop died`, exit.cause),
            SynchronizedRef.update(known, (k) => ({ ...k, looping: false }))
          )
          : Effect.void
      )
    )

    /** Starts the loop when the campaign has work and no loop runs; otherwise wakes it. */
    const ensureLoop = SynchronizedRef.modifyEffect(known, (k): Effect.Effect<readonly [void, Known]> => {
      if (k.looping) return Effect.as(wake, [undefined, k])
      if (k.superseded || k.status === undefined || !isActive(k.status)) return Effect.succeed([undefined, k])
      // a loop that has just handed back may still be releasing: the handle interrupts it
      return Effect.as(FiberHandle.run(loop, runLoop), [undefined, { ...k, looping: true }])
    })

    yield* ensureLoop

    const command = (
      tenantId: TenantId,
      make: (campaign: Campaign, now: number) => CampaignCommand,
      also?: (campaign: Campaign, now: number) => Effect.Effect<unknown>
    ) =>
      apply(tenantId, make, also).pipe(
        Effect.tap(() => ensureLoop),
        Effect.map(reply)
      )

    return logged({
      Schedule: ({ payload }) => command(payload.tenantId, (_, now) => Command.Schedule({ at: payload.at, now })),
      Pause: ({ payload }) => command(payload.tenantId, () => Command.Pause({ reason: "PAUSED_BY_USER" })),
      Resume: ({ payload }) => command(payload.tenantId, () => Command.Resume()),
      Abort: ({ payload }) => command(payload.tenantId, () => Command.Abort(), () => repo.cancelPending(id)),
      Wake: () =>
        SynchronizedRef.updateEffect(
          known,
          (k) =>
            k.looping
              ? Effect.succeed(k)
              : Effect.map(repo.find(null, id), (found) => ({ ...k, status: statusOf(found), row: found }))
        ).pipe(
          Effect.zipRight(ensureLoop)
        )
    })
  }),
  { disableFatalDefects: true }
)
