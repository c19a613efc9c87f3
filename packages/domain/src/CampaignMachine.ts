/**
 * The voice campaign's state machine, pure: a state and a command in, the next state (or the reason
 * the command is refused) out. The `Campaign` entity applies it inside the transaction that writes
 * the campaign row, so what is stored is always a state this function produced.
 *
 * ```
 *            schedule            start (timer)          all contacts final
 *   DRAFT ───────────▶ SCHEDULED ────────────▶ RUNNING ───────────────────▶ COMPLETED
 *                      ▲   │ schedule             │ ▲
 *                      └───┘ (new time)     pause │ │ resume
 *                                                 ▼ │
 *                                                PAUSED   (also: funds exhausted)
 *
 *   abort:  SCHEDULED | RUNNING | PAUSED ─▶ FAILED (reason ABORTED)
 *   fail:   SCHEDULED | RUNNING | PAUSED ─▶ FAILED (agent inactive, voice number removed, …)
 *   delete: DRAFT | COMPLETED | FAILED only
 * ```
 *
 * Abort ends in `FAILED` with the reason `ABORTED`: the spec's six states have no "aborted", and
 * `FAILED` is the state from which a campaign can no longer dial but can be deleted. The reason
 * tells an abort apart from a configuration failure.
 */
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

export const CampaignStatuses = ["DRAFT", "SCHEDULED", "RUNNING", "PAUSED", "COMPLETED", "FAILED"] as const
export const CampaignStatus = Schema.Literal(...CampaignStatuses)
export type CampaignStatus = typeof CampaignStatus.Type

/** Why a campaign is paused or failed. */
export const CampaignStatusReasons = [
  "PAUSED_BY_USER",
  "INSUFFICIENT_FUNDS",
  "ABORTED",
  "AGENT_INACTIVE",
  "AGENT_NOT_FOUND",
  "VOICE_NUMBER_REMOVED",
  "CONTACT_LIST_NOT_FOUND"
] as const
export const CampaignStatusReason = Schema.Literal(...CampaignStatusReasons)
export type CampaignStatusReason = typeof CampaignStatusReason.Type

export type FailureReason = Exclude<CampaignStatusReason, "PAUSED_BY_USER" | "INSUFFICIENT_FUNDS" | "ABORTED">

export interface CampaignState {
  readonly status: CampaignStatus
  readonly statusReason: CampaignStatusReason | null
  /** Epoch ms; set by scheduling. */
  readonly scheduledAt: number | null
  /** Epoch ms; set once, when dialing first starts. */
  readonly startedAt: number | null
  /** Epoch ms; set on completion. */
  readonly completedAt: number | null
}

export type CampaignCommand = Data.TaggedEnum<{
  /** `at`: when dialing should start; `null` for now. */
  Schedule: { readonly at: number | null; readonly now: number }
  /** The scheduled time has come. */
  Start: { readonly now: number }
  Pause: { readonly reason: "PAUSED_BY_USER" | "INSUFFICIENT_FUNDS" }
  Resume: {}
  Abort: {}
  Complete: { readonly now: number }
  Fail: { readonly reason: FailureReason }
  Edit: {}
  Delete: {}
}>
export const CampaignCommand = Data.taggedEnum<CampaignCommand>()

export class InvalidTransition extends Data.TaggedError("InvalidTransition")<{
  readonly from: CampaignStatus
  readonly command: CampaignCommand["_tag"]
  readonly allowedFrom: ReadonlyArray<CampaignStatus>
}> {
  override get message() {
    return `A campaign in ${this.from} cannot ${verbs[this.command]}; allowed from ${this.allowedFrom.join(", ")}`
  }
}

const verbs: Record<CampaignCommand["_tag"], string> = {
  Schedule: "be scheduled",
  Start: "start dialing",
  Pause: "be paused",
  Resume: "be resumed",
  Abort: "be aborted",
  Complete: "complete",
  Fail: "fail",
  Edit: "be edited",
  Delete: "be deleted; abort it first"
}

/** The states each command is accepted in. */
export const allowedFrom: Record<CampaignCommand["_tag"], ReadonlyArray<CampaignStatus>> = {
  Schedule: ["DRAFT", "SCHEDULED"],
  Start: ["SCHEDULED"],
  Pause: ["RUNNING"],
  Resume: ["PAUSED"],
  Abort: ["SCHEDULED", "RUNNING", "PAUSED"],
  Complete: ["RUNNING"],
  Fail: ["SCHEDULED", "RUNNING", "PAUSED"],
  Edit: ["DRAFT"],
  Delete: ["DRAFT", "COMPLETED", "FAILED"]
}

/** States in which the campaign's entity has work to do (a timer or a dial loop). */
export const isActive = (status: CampaignStatus): boolean => status === "SCHEDULED" || status === "RUNNING"

/** States that refuse deletion and hold their contact list. */
export const holdsResources = (status: CampaignStatus): boolean =>
  status === "SCHEDULED" || status === "RUNNING" || status === "PAUSED"

export const transition = (
  state: CampaignState,
  command: CampaignCommand
): Either.Either<CampaignState, InvalidTransition> => {
  if (!allowedFrom[command._tag].includes(state.status)) {
    return Either.left(
      new InvalidTransition({ from: state.status, command: command._tag, allowedFrom: allowedFrom[command._tag] })
    )
  }
  return Either.right(CampaignCommand.$match(command, {
    Schedule: ({ at, now }): CampaignState => ({
      ...state,
      status: "SCHEDULED",
      statusReason: null,
      scheduledAt: at === null || at < now ? now : at
    }),
    Start: ({ now }): CampaignState => ({
      ...state,
      status: "RUNNING",
      statusReason: null,
      startedAt: state.startedAt ?? now
    }),
    Pause: ({ reason }): CampaignState => ({ ...state, status: "PAUSED", statusReason: reason }),
    Resume: (): CampaignState => ({ ...state, status: "RUNNING", statusReason: null }),
    Abort: (): CampaignState => ({ ...state, status: "FAILED", statusReason: "ABORTED" }),
    Complete: ({ now }): CampaignState => ({ ...state, status: "COMPLETED", statusReason: null, completedAt: now }),
    Fail: ({ reason }): CampaignState => ({ ...state, status: "FAILED", statusReason: reason }),
    Edit: (): CampaignState => state,
    Delete: (): CampaignState => state
  }))
}
