/**
 * Campaign rows, their contact snapshots and attempts, and the do-not-call list.
 *
 * Times that drive dialing (scheduled start, redial due, attempt times) are written from Effect's
 * `Clock`, never from the database's `now()`, so a campaign under `TestClock` lives in test time.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { ValidationIssue } from "@voiceagent/domain/ApiError"
import { CallOutcome } from "@voiceagent/domain/CallMachine"
import type { CallSpec } from "@voiceagent/domain/Calls"
import { allowedFrom, type CampaignState, type CampaignStatus } from "@voiceagent/domain/CampaignMachine"
import {
  AttemptStatus,
  Campaign,
  CAMPAIGN_LIMITS,
  CampaignAttempt,
  CampaignAttemptId,
  CampaignId,
  ContactState,
  type CreateCampaignRequest,
  DncEntry,
  recipientHoursOnCreate,
  recipientHoursOnUpdate,
  type SkipReason,
  type UpdateCampaignRequest,
  updateIssues
} from "@voiceagent/domain/Campaigns"
import { ContactId, type TenantId, VoiceNumberId } from "@voiceagent/domain/Ids"
import { type JsonObject, mergePatch } from "@voiceagent/domain/Json"
import { offsetOf, type PageRequest } from "@voiceagent/domain/Pagination"
import { PhoneProvider } from "@voiceagent/domain/Phone"
import { VoiceNumber } from "@voiceagent/domain/VoiceNumbers"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { v7 as uuidv7 } from "uuid"
import { type CallReservation, SESSION_INSERT_COLUMNS, sessionRowOf } from "../CallRecords/CallSessionsRepo.js"
import * as Rows from "../Sql/Rows.js"

const COLUMNS = `id, tenant_id, name, description, agent_id, voice_number_id, contact_list_id, status, status_reason,
  total_contacts, dialed_contacts, answered_contacts, dial_timeout, max_attempts, redial_delay_min,
  max_concurrent_calls, scheduled_at, started_at, completed_at, timezone, call_window_start, call_window_end, call_days,
  jsonb_build_object('enabled', recipient_hours_enabled, 'start', recipient_hours_start, 'end', recipient_hours_end)
    AS recipient_calling_hours,
  metadata, created_at, updated_at`

const ATTEMPT_COLUMNS = `a.id, a.campaign_id, a.contact_id, c.phone_number, c.name AS contact_name, a.attempt_number,
  a.status, a.outcome, a.skip_reason, a.session_id, a.claimed_at, a.dialed_at, a.ended_at`

/** The machine's own table: the states a campaign may be deleted in. */
const DELETABLE = allowedFrom.Delete

/** A contact due for a dial. */
export interface DueContact {
  readonly contactId: ContactId
  readonly phoneNumber: string
  readonly attempts: number
  readonly dnc: boolean
}

/** A due contact whose local hours are closed: not dialed before `until`. */
export interface Hold {
  readonly contactId: ContactId
  readonly until: number
}

/** What an update did. */
export type UpdateResult =
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "NotDraft" }
  | { readonly _tag: "Invalid"; readonly issues: ReadonlyArray<ValidationIssue> }
  | { readonly _tag: "Updated"; readonly campaign: Campaign }

/** An attempt claimed but not known to be dialed: after a crash it is dialed (once) by its session id. */
export interface OpenClaim {
  readonly id: CampaignAttemptId
  readonly contactId: ContactId
  readonly phoneNumber: string
  readonly sessionId: string
}

/** A contact to claim in a batch, with the ids its attempt and call will have and the call's spec. */
export interface ClaimRequest {
  readonly contactId: ContactId
  readonly attemptId: CampaignAttemptId
  readonly sessionId: string
  readonly spec: CallSpec
}

/** What a batched claim took, and what the wallet and the campaign row said. */
export interface ClaimBatch {
  readonly claimed: ReadonlyArray<
    { readonly id: CampaignAttemptId; readonly contactId: ContactId; readonly sessionId: string }
  >
  /** The wallet's available funds and open calls as the claim saw them (null: no wallet yet). */
  readonly available: number | null
  readonly openCalls: number | null
  /** False when the campaign is not RUNNING under this owner's epoch (nothing was claimed). */
  readonly owned: boolean
  /**
   * The campaign's agent as the claim saw it (null: gone) and whether
   * its voice number is there: nothing was claimed unless both are.
   */
  readonly agentActive: boolean | null
  readonly numberPresent: boolean
}

/** Why a batch took fewer calls than asked: the wallet's funds, or the tenant's concurrent-call limit. */
export const shortfall = (
  batch: ClaimBatch,
  asked: number,
  reservation: CallReservation
): "no_funds" | "tenant_busy" | undefined => {
  if (!batch.owned || batch.available === null || batch.claimed.length >= asked) return undefined
  const byFunds = reservation.amount > 0 ? Math.floor(batch.available / reservation.amount) : Infinity
  const byLimit = reservation.concurrencyLimit === null
    ? Infinity
    : Math.max(0, reservation.concurrencyLimit - (batch.openCalls ?? 0))
  if (byFunds < asked && byFunds <= byLimit) return "no_funds"
  if (byLimit < asked) return "tenant_busy"
  return undefined
}

export interface ContactCounts {
  readonly pending: number
  readonly inProgress: number
  readonly answered: number
  readonly exhausted: number
  readonly skipped: number
  readonly cancelled: number
  readonly awaitingLocalHours: number
}

/** A campaign row (`COLUMNS`): the class's fields; its metadata's shape is checked, not the write-time limits. */
const CampaignRow = Rows.of(Campaign, { metadata: Rows.JsonObjectColumn })

/** An attempt row (`ATTEMPT_COLUMNS`, joined with its contact's snapshot). */
const CampaignAttemptRow = Rows.of(CampaignAttempt)

const DncRow = Rows.of(DncEntry)

const OwnerEpochRow = Schema.Struct({ ownerEpoch: Schema.Int })

const CountRow = Schema.Struct({ n: Schema.NonNegativeInt })

const SkippedRow = Schema.Struct({ contactId: ContactId, attempts: Schema.Int })

const WorkloadRow = Schema.Struct({
  open: Schema.NonNegativeInt,
  pending: Schema.NonNegativeInt,
  nextDue: Schema.NullOr(Schema.DateFromSelf)
})

const OpenClaimRow = Schema.Struct({
  id: CampaignAttemptId,
  contactId: ContactId,
  phoneNumber: Schema.String,
  sessionId: Schema.String
})

const ContactCountRow = Schema.Struct({
  state: ContactState,
  n: Schema.NonNegativeInt,
  awaiting: Schema.NonNegativeInt
})

const AttemptCountRow = Schema.Struct({
  status: AttemptStatus,
  outcome: Schema.NullOr(CallOutcome),
  n: Schema.NonNegativeInt
})

const CampaignIdRow = Schema.Struct({ id: CampaignId })

/**
 * The campaign's agent (null: gone) and voice number as a pass reads them (`referenceColumns`): the
 * number's columns all null (left-joined, gone) or all there.
 */
const ReferencesRow = Schema.extend(
  Schema.Struct({ agentActive: Schema.NullOr(Schema.Boolean) }),
  Schema.Union(
    Schema.Struct({
      numberId: Schema.Null,
      numberPhoneNumber: Schema.Null,
      numberProvider: Schema.Null,
      numberLabel: Schema.Null,
      numberCreatedAt: Schema.Null,
      numberUpdatedAt: Schema.Null
    }),
    Schema.Struct({
      numberId: VoiceNumberId,
      numberPhoneNumber: Schema.String,
      numberProvider: PhoneProvider,
      numberLabel: Schema.NullOr(Schema.String),
      numberCreatedAt: Schema.DateFromSelf,
      numberUpdatedAt: Schema.DateFromSelf
    })
  )
)
type ReferencesRow = typeof ReferencesRow.Type

/** A json column the drivers give parsed (`pg`) or as its text (PGlite). */
const JsonColumn = <A, I>(schema: Schema.Schema<A, I>) => Schema.Union(schema, Schema.parseJson(schema))

const DueContactRow = Schema.Struct({
  contactId: ContactId,
  phoneNumber: Schema.String,
  attempts: Schema.Int,
  dnc: Schema.Boolean
})

/** A pass's row: the workload, the due contacts (a json array, null when none) and the references. */
const PassRow = Schema.extend(
  Schema.Struct({ ...WorkloadRow.fields, due: Schema.NullOr(JsonColumn(Schema.Array(DueContactRow))) }),
  ReferencesRow
)

const ClaimRow = Schema.Struct({ id: CampaignAttemptId, sessionId: Schema.String, attemptNumber: Schema.Int })

const ClaimedRow = Schema.Struct({ id: CampaignAttemptId, contactId: ContactId, sessionId: Schema.String })

/** A batched claim's answer (`claimed` a json array, null when nothing was taken). */
const ClaimBatchRow = Schema.Struct({
  claimed: Schema.NullOr(JsonColumn(Schema.Array(ClaimedRow))),
  available: Schema.NullOr(Schema.Int),
  openCalls: Schema.NullOr(Schema.Int),
  owned: Schema.NonNegativeInt,
  agentActive: Schema.NullOr(Schema.Boolean),
  numberPresent: Schema.Boolean
})

/** What a dial pass checks before it dials: the agent (null when gone) and the voice number. */
export interface References {
  readonly agentActive: boolean | null
  readonly voiceNumber: Option.Option<VoiceNumber>
}

const referencesOf = (row: ReferencesRow): References => ({
  agentActive: row.agentActive,
  voiceNumber: row.numberId === null ? Option.none() : Option.some(
    new VoiceNumber({
      id: row.numberId,
      phoneNumber: row.numberPhoneNumber,
      provider: row.numberProvider,
      label: row.numberLabel,
      createdAt: row.numberCreatedAt,
      updatedAt: row.numberUpdatedAt
    }, Rows.validated)
  )
})

export const stateOf = (campaign: Campaign): CampaignState => ({
  status: campaign.status,
  statusReason: campaign.statusReason,
  scheduledAt: campaign.scheduledAt?.getTime() ?? null,
  startedAt: campaign.startedAt?.getTime() ?? null,
  completedAt: campaign.completedAt?.getTime() ?? null
})

const date = (ms: number | null) => (ms === null ? null : new Date(ms))

/**
 * The campaign side of calls placed, as CTEs appended to the statement that writes calls `DIALING`
 * (`Calls/CallJournal`), over its CTE `dialed (campaign_attempt_id text, dialed_at timestamptz)`:
 * each attempt gets its dial time and `DIALED` once (a call resumed after a crash finds `dialed_at`
 * set), and the contacts dialed for the first time are counted, once per campaign in the batch.
 */
export const ATTEMPTS_DIALED_CTES = `
  attempts_dialed AS (
    UPDATE campaign_attempts t SET dialed_at = d.dialed_at,
      status = CASE WHEN t.status = 'CLAIMED' THEN 'DIALED' ELSE t.status END
    FROM dialed d WHERE t.id = d.campaign_attempt_id::uuid AND t.dialed_at IS NULL
    RETURNING t.campaign_id, t.attempt_number
  ), campaigns_dialed AS (
    UPDATE campaigns g SET dialed_contacts = g.dialed_contacts + n.first
    FROM (SELECT campaign_id, count(*)::int AS first FROM attempts_dialed WHERE attempt_number = 1
      GROUP BY campaign_id) n
    WHERE g.id = n.campaign_id
  )`

/**
 * The campaign side of calls' ends, as CTEs appended to the statement that writes calls `ENDED`
 * (`Calls/CallJournal`), over its CTE `ended (campaign_attempt_id text, outcome text, ended_at
 * timestamptz, started_at timestamptz)`, so it commits with the end or not at all. Each attempt gets
 * its outcome once (one already `ENDED` is left alone); its contact is answered, due again after the
 * redial delay, exhausted or cancelled; the campaign's counters move once per campaign in the batch.
 *
 * An attempt whose call ends was dialed, whoever noticed: a call started and never written `DIALING`
 * by the runner that started it (it died) may have been dialed by the call's next owner without the
 * attempt's dial time. So the dial is recorded here too when it was not (at the call's start), and
 * counted as a first dial is.
 */
export const ATTEMPTS_ENDED_CTES = `
  attempts_before AS (
    SELECT t.id, t.dialed_at IS NULL AS undialed, e.outcome, e.ended_at, e.started_at
    FROM campaign_attempts t JOIN ended e ON t.id = e.campaign_attempt_id::uuid
    WHERE t.status IN ('CLAIMED', 'DIALED')
    FOR UPDATE OF t
  ), attempts_ended AS (
    UPDATE campaign_attempts t SET status = 'ENDED', outcome = b.outcome, ended_at = b.ended_at,
      dialed_at = COALESCE(t.dialed_at, b.started_at)
    FROM attempts_before b WHERE t.id = b.id
    RETURNING t.campaign_id, t.contact_id, (b.undialed AND t.attempt_number = 1) AS first_dial, b.outcome, b.ended_at
  ), attempts_rules AS (
    SELECT a.*, g.max_attempts, g.redial_delay_min, g.status AS campaign_status
    FROM attempts_ended a JOIN campaigns g ON g.id = a.campaign_id
  ), contacts_ended AS (
    UPDATE campaign_contacts cc SET
      last_outcome = k.outcome,
      state = CASE
        WHEN k.outcome = 'ANSWERED' THEN 'ANSWERED'
        WHEN k.outcome = 'CANCELED' OR k.campaign_status IN ('FAILED', 'COMPLETED') THEN 'CANCELLED'
        WHEN cc.attempts >= k.max_attempts THEN 'EXHAUSTED'
        ELSE 'PENDING' END,
      next_attempt_at = k.ended_at + make_interval(mins => k.redial_delay_min)
    FROM attempts_rules k
    WHERE cc.campaign_id = k.campaign_id AND cc.contact_id = k.contact_id AND cc.state = 'IN_PROGRESS'
    RETURNING cc.campaign_id, k.outcome
  ), campaigns_ended AS (
    UPDATE campaigns g SET answered_contacts = g.answered_contacts + n.answered,
      dialed_contacts = g.dialed_contacts + n.first
    FROM (
      SELECT campaign_id, sum(answered)::int AS answered, sum(first)::int AS first FROM (
        SELECT campaign_id, CASE WHEN outcome = 'ANSWERED' THEN 1 ELSE 0 END AS answered, 0 AS first FROM contacts_ended
        UNION ALL
        SELECT campaign_id, 0, CASE WHEN first_dial THEN 1 ELSE 0 END FROM attempts_ended
      ) u GROUP BY campaign_id
    ) n
    WHERE g.id = n.campaign_id AND (n.answered > 0 OR n.first > 0)
  )`

export class CampaignsRepo extends Effect.Service<CampaignsRepo>()("Campaigns/CampaignsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)

    const create = (tenantId: TenantId, input: CreateCampaignRequest, now: number) => {
      const hours = recipientHoursOnCreate(input.recipientCallingHours)
      return Rows.single(
        CampaignRow,
        sql`
        INSERT INTO campaigns (id, tenant_id, name, description, agent_id, voice_number_id, contact_list_id,
          dial_timeout, max_attempts, redial_delay_min, max_concurrent_calls, timezone, call_window_start,
          call_window_end, call_days, recipient_hours_enabled, recipient_hours_start, recipient_hours_end,
          metadata, created_at, updated_at)
        VALUES (${uuidv7()}, ${tenantId}, ${input.name}, ${input.description ?? ""}, ${input.agentId},
          ${input.voiceNumberId}, ${input.contactListId},
          ${input.dialTimeout ?? CAMPAIGN_LIMITS.dialTimeout.default},
          ${input.maxAttempts ?? CAMPAIGN_LIMITS.maxAttempts.default},
          ${input.redialDelayMin ?? CAMPAIGN_LIMITS.redialDelayMin.default},
          ${input.maxConcurrentCalls ?? CAMPAIGN_LIMITS.maxConcurrentCalls.default},
          ${input.timezone ?? CAMPAIGN_LIMITS.timezone.default},
          ${input.callWindowStart ?? CAMPAIGN_LIMITS.callWindow.defaultStart},
          ${input.callWindowEnd ?? CAMPAIGN_LIMITS.callWindow.defaultEnd},
          ${JSON.stringify(input.callDays ?? CAMPAIGN_LIMITS.callDays.default)}::jsonb,
          ${hours.enabled}, ${hours.start}, ${hours.end},
          ${JSON.stringify(input.metadata ?? {})}::jsonb, ${new Date(now)}, ${new Date(now)})
        RETURNING ${columns}
      `
      ).pipe(Effect.orDie)
    }

    const list = (tenantId: TenantId, status: CampaignStatus | undefined, page: PageRequest) =>
      Rows.page(
        CampaignRow,
        sql`
          SELECT ${columns} FROM campaigns
          WHERE tenant_id = ${tenantId} ${status === undefined ? sql`` : sql`AND status = ${status}`}
          ORDER BY id DESC LIMIT ${page.pageSize} OFFSET ${offsetOf(page)}
        `,
        sql`
          SELECT count(*)::int AS total FROM campaigns
          WHERE tenant_id = ${tenantId} ${status === undefined ? sql`` : sql`AND status = ${status}`}
        `
      )

    /** The campaign if it is the tenant's (any tenant's when `tenantId` is null: the entity's own reads). */
    const find = (tenantId: TenantId | null, id: CampaignId, options: { readonly lock?: boolean } = {}) =>
      Rows.findOne(
        CampaignRow,
        sql`
        SELECT ${columns} FROM campaigns WHERE id = ${id}
        ${tenantId === null ? sql`` : sql`AND tenant_id = ${tenantId}`}
        ${options.lock === true ? sql`FOR UPDATE` : sql``}
      `
      ).pipe(Effect.orDie)

    /** Changes a DRAFT, once the patch merged with what is stored is still valid. */
    const update = Effect.fn("CampaignsRepo.update")(
      function*(tenantId: TenantId, id: CampaignId, patch: UpdateCampaignRequest, now: number) {
        const found = yield* find(tenantId, id, { lock: true })
        if (Option.isNone(found)) return { _tag: "NotFound" } as UpdateResult
        const c = found.value
        if (c.status !== "DRAFT") return { _tag: "NotDraft" } as UpdateResult
        const issues = updateIssues(c, patch)
        if (issues.length > 0) return { _tag: "Invalid", issues } as UpdateResult
        const hours = recipientHoursOnUpdate(c.recipientCallingHours, patch.recipientCallingHours)
        const metadata = patch.metadata === undefined
          ? c.metadata
          : mergePatch(c.metadata, patch.metadata) as JsonObject
        const start = patch.callWindowStart ?? c.callWindowStart
        const end = patch.callWindowEnd ?? c.callWindowEnd
        const campaign = yield* Rows.single(
          CampaignRow,
          sql`
          UPDATE campaigns SET
            name = ${patch.name ?? c.name},
            description = ${patch.description ?? c.description},
            agent_id = ${patch.agentId ?? c.agentId},
            voice_number_id = ${patch.voiceNumberId ?? c.voiceNumberId},
            contact_list_id = ${patch.contactListId ?? c.contactListId},
            dial_timeout = ${patch.dialTimeout ?? c.dialTimeout},
            max_attempts = ${patch.maxAttempts ?? c.maxAttempts},
            redial_delay_min = ${patch.redialDelayMin ?? c.redialDelayMin},
            max_concurrent_calls = ${patch.maxConcurrentCalls ?? c.maxConcurrentCalls},
            timezone = ${patch.timezone ?? c.timezone},
            call_window_start = ${start},
            call_window_end = ${end},
            call_days = ${JSON.stringify(patch.callDays ?? c.callDays)}::jsonb,
            recipient_hours_enabled = ${hours.enabled},
            recipient_hours_start = ${hours.start},
            recipient_hours_end = ${hours.end},
            metadata = ${JSON.stringify(metadata)}::jsonb,
            updated_at = ${new Date(now)}
          WHERE id = ${id}
          RETURNING ${columns}
        `
        )
        return { _tag: "Updated", campaign } as UpdateResult
      },
      sql.withTransaction,
      Effect.orDie
    )

    /** Deletes the campaign and its attempts unless it is scheduled, running or paused. */
    const remove = Effect.fn("CampaignsRepo.remove")(
      function*(tenantId: TenantId, id: CampaignId) {
        const deleted = yield* sql`
          DELETE FROM campaigns
          WHERE id = ${id} AND tenant_id = ${tenantId} AND status IN ${sql.in(DELETABLE)}
          RETURNING id
        `
        if (deleted.length > 0) return "deleted" as const
        const exists = yield* sql`SELECT 1 FROM campaigns WHERE id = ${id} AND tenant_id = ${tenantId}`
        return exists.length > 0 ? "active" as const : "not_found" as const
      },
      Effect.orDie
    )

    /**
     * An instance of the campaign's entity starting takes the next owner epoch: from then on only its
     * state changes and claims apply (see `writeState`, `claim`). `None` for no such campaign.
     */
    const claimOwnership = (id: CampaignId) =>
      Rows.findOne(
        OwnerEpochRow,
        sql`UPDATE campaigns SET owner_epoch = owner_epoch + 1 WHERE id = ${id} RETURNING owner_epoch`
      ).pipe(
        Effect.map(Option.map((r) => r.ownerEpoch)),
        Effect.orDie
      )

    /** Whether an instance other than the one holding `epoch` owns the campaign now. */
    const ownedElsewhere = (id: CampaignId, epoch: number) =>
      Rows.findOne(OwnerEpochRow, sql`SELECT owner_epoch FROM campaigns WHERE id = ${id}`).pipe(
        Effect.map(Option.exists((r) => r.ownerEpoch !== epoch)),
        Effect.orDie
      )

    /** Writes a state the machine produced; `None` when another instance owns the campaign now. */
    const writeState = (id: CampaignId, epoch: number, state: CampaignState, now: number) =>
      Rows.findOne(
        CampaignRow,
        sql`
        UPDATE campaigns SET
          status = ${state.status},
          status_reason = ${state.statusReason},
          scheduled_at = ${date(state.scheduledAt)},
          started_at = ${date(state.startedAt)},
          completed_at = ${date(state.completedAt)},
          updated_at = ${new Date(now)}
        WHERE id = ${id} AND owner_epoch = ${epoch}
        RETURNING ${columns}
      `
      ).pipe(Effect.orDie)

    /**
     * Copies the list into the campaign (in the transaction that starts dialing): each contact once,
     * in list order; numbers on the do-not-call list are recorded as skipped attempts at once.
     */
    const snapshot = Effect.fn("CampaignsRepo.snapshot")(
      function*(campaign: Campaign, now: number) {
        const at = new Date(now)
        yield* sql`
          INSERT INTO campaign_contacts (campaign_id, contact_id, position, phone_number, name, state, next_attempt_at)
          SELECT ${campaign.id}, c.id, row_number() OVER (ORDER BY c.id), c.phone_number, c.name,
                 CASE WHEN d.phone_number IS NULL THEN 'PENDING' ELSE 'SKIPPED' END, ${at}
          FROM contacts c
          LEFT JOIN dnc_numbers d ON d.tenant_id = ${campaign.tenantId} AND d.phone_number = c.phone_number
          WHERE c.contact_list_id = ${campaign.contactListId} AND c.tenant_id = ${campaign.tenantId}
          ON CONFLICT DO NOTHING
        `
        yield* recordSkips(campaign, at)
        const { n } = yield* Rows.single(
          CountRow,
          sql`SELECT count(*)::int AS n FROM campaign_contacts WHERE campaign_id = ${campaign.id}`
        )
        yield* sql`UPDATE campaigns SET total_contacts = ${n} WHERE id = ${campaign.id}`
        return n
      },
      Effect.orDie
    )

    /**
     * One SKIPPED attempt for every skipped contact that has none yet. Their ids are UUIDv7 like
     * every other attempt's, so listing attempts by id lists them in the order they happened.
     */
    const recordSkips = (campaign: Campaign, at: Date) =>
      Effect.gen(function*() {
        const skipped = yield* Rows.findAll(
          SkippedRow,
          sql`
          SELECT cc.contact_id, cc.attempts
          FROM campaign_contacts cc
          WHERE cc.campaign_id = ${campaign.id} AND cc.state = 'SKIPPED'
            AND NOT EXISTS (SELECT 1 FROM campaign_attempts a WHERE a.campaign_id = cc.campaign_id
              AND a.contact_id = cc.contact_id)
          ORDER BY cc.position
        `
        )
        if (skipped.length === 0) return
        const rows = skipped.map((s) => ({ id: uuidv7(), contact_id: s.contactId, attempt_number: s.attempts + 1 }))
        yield* sql`
          INSERT INTO campaign_attempts (id, campaign_id, tenant_id, contact_id, attempt_number, status, skip_reason,
            claimed_at)
          SELECT x.id, ${campaign.id}, ${campaign.tenantId}, x.contact_id, x.attempt_number, 'SKIPPED', 'DO_NOT_CALL',
            ${at}
          FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(id uuid, contact_id uuid, attempt_number integer)
          ON CONFLICT DO NOTHING
        `
      })

    /** The agent's state and the voice number's columns (`n`: the number, left-joined by the caller). */
    const referenceColumns = (campaign: Campaign) =>
      sql`(SELECT a.is_active FROM agents a WHERE a.id = ${campaign.agentId} AND a.tenant_id = ${campaign.tenantId})
        AS agent_active,
          n.id AS number_id, n.phone_number AS number_phone_number, n.provider AS number_provider, n.label
            AS number_label,
          n.created_at AS number_created_at, n.updated_at AS number_updated_at`

    /** Attempts placed and not ended, and the earliest redial still to come. */
    const workload = (id: CampaignId) =>
      Rows.single(
        WorkloadRow,
        sql`
        SELECT
          (SELECT count(*)::int FROM campaign_attempts WHERE campaign_id = ${id} AND status IN ('CLAIMED', 'DIALED'))
            AS open,
          (SELECT count(*)::int FROM campaign_contacts WHERE campaign_id = ${id} AND state
            IN ('PENDING', 'IN_PROGRESS')) AS pending,
          (SELECT min(next_attempt_at) FROM campaign_contacts WHERE campaign_id = ${id} AND state = 'PENDING')
            AS next_due
      `
      ).pipe(Effect.orDie)

    /**
     * What a dial pass looks at, in one statement: the campaign's references (as {@link references}
     * reads them), the attempts placed and not ended, the contacts left (pending or in progress), the
     * earliest redial still to come, and the contacts due now in order (flagged when their number is
     * on the do-not-call list), at most `limit` of them, and when `withinCapacity` no more than the
     * campaign's `maxConcurrentCalls` less the open attempts.
     */
    const pass = (campaign: Campaign, now: number, limit: number, withinCapacity: boolean) =>
      Rows.single(
        PassRow,
        sql`
        WITH w AS (
          SELECT
            (SELECT count(*)::int FROM campaign_attempts WHERE campaign_id = ${campaign.id} AND status
              IN ('CLAIMED', 'DIALED')) AS open,
            (SELECT count(*)::int FROM campaign_contacts WHERE campaign_id = ${campaign.id} AND state
              IN ('PENDING', 'IN_PROGRESS')) AS pending,
            (SELECT min(next_attempt_at) FROM campaign_contacts WHERE campaign_id = ${campaign.id}
              AND state = 'PENDING') AS next_due
        ), due AS (
          SELECT cc.contact_id, cc.phone_number, cc.attempts, (d.phone_number IS NOT NULL) AS dnc,
            row_number() OVER (ORDER BY cc.next_attempt_at, cc.position) AS ord
          FROM campaign_contacts cc
          LEFT JOIN dnc_numbers d ON d.tenant_id = ${campaign.tenantId} AND d.phone_number = cc.phone_number
          WHERE cc.campaign_id = ${campaign.id} AND cc.state = 'PENDING' AND cc.next_attempt_at <= ${new Date(now)}
          ORDER BY cc.next_attempt_at, cc.position
          LIMIT (SELECT GREATEST(CASE WHEN ${withinCapacity}
            THEN LEAST(${limit}::int, ${campaign.maxConcurrentCalls}::int - w.open)
            ELSE ${limit}::int END, 0) FROM w)
        )
        SELECT w.open, w.pending, w.next_due,
          (SELECT json_agg(json_build_object('contactId', contact_id, 'phoneNumber', phone_number, 'attempts',
            attempts, 'dnc', dnc)
            ORDER BY ord) FROM due) AS due,
          ${referenceColumns(campaign)}
        FROM w
        LEFT JOIN voice_numbers n ON n.id = ${campaign.voiceNumberId} AND n.tenant_id = ${campaign.tenantId}
      `
      ).pipe(
        Effect.map((row) => ({
          open: row.open,
          pending: row.pending,
          nextDue: row.nextDue,
          due: row.due ?? ([] as ReadonlyArray<DueContact>),
          ...referencesOf(row)
        })),
        Effect.orDie
      )

    /**
     * The campaign's agent (whether it exists and is active) and voice number, in one statement: read
     * on its own where no other statement of the pass carries them (before claims left open are
     * started again, and between a batch's dials paced a second or more apart); a pass reads them in
     * {@link pass} and its claim checks them again (`claimBatch`).
     */
    const references = (campaign: Campaign) =>
      Rows.single(
        ReferencesRow,
        sql`
        SELECT ${referenceColumns(campaign)}
        FROM (SELECT 1) one
        LEFT JOIN voice_numbers n ON n.id = ${campaign.voiceNumberId} AND n.tenant_id = ${campaign.tenantId}
      `
      ).pipe(Effect.map(referencesOf), Effect.orDie)

    /**
     * Claims the contact's next attempt: the attempt row (unique per campaign, contact and number)
     * with its session id, and the contact marked in progress, in one statement. `None` when the
     * contact is no longer pending (claimed by an earlier owner of the campaign), or when another
     * instance owns the campaign now (`epoch`).
     */
    const claim = (campaign: Campaign, epoch: number, contactId: ContactId, now: number) =>
      Rows.findOne(
        ClaimRow,
        sql`
        WITH c AS (
          UPDATE campaign_contacts SET state = 'IN_PROGRESS', attempts = attempts + 1, awaiting_local_hours = false
          WHERE campaign_id = ${campaign.id} AND contact_id = ${contactId} AND state = 'PENDING'
            AND EXISTS (SELECT 1 FROM campaigns g WHERE g.id = ${campaign.id} AND g.owner_epoch = ${epoch})
          RETURNING contact_id, attempts
        )
        INSERT INTO campaign_attempts (id, campaign_id, tenant_id, contact_id, attempt_number, status, session_id,
          claimed_at)
        SELECT ${uuidv7()}, ${campaign.id}, ${campaign.tenantId}, c.contact_id, c.attempts, 'CLAIMED', ${uuidv7()},
          ${new Date(
          now
        )}
        FROM c
        RETURNING id, session_id, attempt_number
      `
      ).pipe(Effect.orDie)

    /**
     * A pass's claim, one statement for k contacts: the tenant's wallet locked first and its funds and
     * concurrent-call limit checked (k shrinks to what they allow); the campaign checked RUNNING
     * under this owner's epoch; the contacts still PENDING taken in order (`FOR UPDATE SKIP LOCKED`:
     * a split-brain twin's claim skips them) and marked IN_PROGRESS; their attempts inserted CLAIMED
     * with their session ids; their sessions inserted QUEUED (the start intent: safe to dial after a
     * crash, never dialled again once DIALING); and each call's reservation, with the wallet's
     * reserved funds and open calls moved once. A `LiveCall` started for one of these sessions finds
     * it, reserved, and dials it.
     */
    const claimBatch = Effect.fn("CampaignsRepo.claimBatch")(
      function*(
        campaign: Campaign,
        epoch: number,
        requests: ReadonlyArray<ClaimRequest>,
        now: number,
        reservation: CallReservation
      ) {
        if (requests.length === 0) {
          return {
            claimed: [],
            available: null,
            openCalls: null,
            owned: true,
            agentActive: true,
            numberPresent: true
          } as ClaimBatch
        }
        const at = new Date(now)
        const { amount, concurrencyLimit: limit } = reservation
        const k = requests.length
        const rows = requests.map((r, i) => ({
          ord: i,
          contact_id: r.contactId,
          attempt_id: r.attemptId,
          session_id: r.sessionId
        }))
        const sessions = requests.map((r) => sessionRowOf(r.sessionId, r.spec, r.spec.reservationChunkSeconds))
        const eventBase = uuidv7()
        const columns = sql.literal(SESSION_INSERT_COLUMNS)
        const row = yield* Rows.single(
          ClaimBatchRow,
          sql`
          WITH w AS (
            SELECT balance, reserved, balance - reserved AS available, open_calls FROM wallets
            WHERE tenant_id = ${campaign.tenantId} FOR UPDATE
          ), g AS (
            SELECT 1 FROM campaigns WHERE id = ${campaign.id} AND owner_epoch = ${epoch} AND status = 'RUNNING'
          ), refs AS (
            -- the agent and the voice number, checked as the pass checked them: a claim made a pace slot
            -- after its pass (a second at 1 dial/s) takes nothing when either has gone meanwhile
            SELECT (SELECT a.is_active FROM agents a WHERE a.id = ${campaign.agentId}
              AND a.tenant_id = ${campaign.tenantId}) AS agent_active,
              EXISTS (SELECT 1 FROM voice_numbers n WHERE n.id = ${campaign.voiceNumberId}
                AND n.tenant_id = ${campaign.tenantId}) AS number_present
          ), allowed AS (
            SELECT LEAST(${k}::int,
              CASE WHEN ${amount}::bigint > 0 THEN LEAST(w.available / ${amount}::bigint, ${k}::bigint)::int
                ELSE ${k}::int END,
              CASE WHEN ${limit}::int IS NULL THEN ${k}::int ELSE GREATEST(${limit}::int - w.open_calls, 0) END) AS n
            FROM w, g, refs WHERE refs.agent_active AND refs.number_present
          ), x AS (
            SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
              AS x(ord int, contact_id uuid, attempt_id uuid, session_id uuid)
          ), picked AS (
            SELECT cc.contact_id, x.ord FROM campaign_contacts cc JOIN x ON x.contact_id = cc.contact_id
            WHERE cc.campaign_id = ${campaign.id} AND cc.state = 'PENDING'
            ORDER BY x.ord
            LIMIT COALESCE((SELECT n FROM allowed), 0)
            FOR UPDATE OF cc SKIP LOCKED
          ), c AS (
            UPDATE campaign_contacts cc SET state = 'IN_PROGRESS', attempts = cc.attempts + 1,
              awaiting_local_hours = false
            FROM picked WHERE cc.campaign_id = ${campaign.id} AND cc.contact_id = picked.contact_id
              AND cc.state = 'PENDING'
            RETURNING cc.contact_id, cc.attempts
          ), a AS (
            INSERT INTO campaign_attempts (id, campaign_id, tenant_id, contact_id, attempt_number, status, session_id,
              claimed_at)
            SELECT x.attempt_id, ${campaign.id}, ${campaign.tenantId}, c.contact_id, c.attempts, 'CLAIMED',
              x.session_id, ${at}
            FROM c JOIN x ON x.contact_id = c.contact_id
            RETURNING id, contact_id, session_id
          ), s AS (
            INSERT INTO call_sessions (${columns})
            SELECT ${columns} FROM jsonb_populate_recordset(NULL::call_sessions, ${JSON.stringify(sessions)}::jsonb) p
            WHERE p.id IN (SELECT session_id FROM a)
            RETURNING id
          ), ev AS (
            INSERT INTO call_events (id, session_id, type, detail, at)
            -- the base id is a parameter: the statement's text is the same for every claim (prepared once)
            SELECT overlay(${eventBase}::text placing lpad(to_hex(row_number() OVER ()), 8, '0') from 29 for 8)::uuid,
              s.id, 'queued', NULL, ${at}
            FROM s
          ), r AS (
            INSERT INTO reservations (id, tenant_id, amount, status, purpose)
            SELECT s.id::text, ${campaign.tenantId}::uuid, ${amount}::bigint, 'open', 'call' FROM s
            RETURNING amount
          ), upd AS (
            -- from the locked row's values (w), not the statement's snapshot: see Ledger's WALLET_FROM_LOCK
            UPDATE wallets SET balance = w.balance, reserved = w.reserved + (SELECT COALESCE(sum(amount), 0) FROM r),
              open_calls = w.open_calls + (SELECT count(*) FROM r), updated_at = now()
            FROM w WHERE wallets.tenant_id = ${campaign.tenantId} AND EXISTS (SELECT 1 FROM r)
          )
          SELECT
            (SELECT json_agg(json_build_object('id', a.id, 'contactId', a.contact_id, 'sessionId', a.session_id))
              FROM a) AS claimed,
            (SELECT available FROM w) AS available, (SELECT open_calls FROM w) AS open_calls,
            (SELECT count(*) FROM g)::int AS owned,
            (SELECT agent_active FROM refs) AS agent_active, (SELECT number_present FROM refs) AS number_present
        `
        )
        const byContact = new Map(requests.map((r, i) => [r.contactId as string, i]))
        const claimed = [...(row.claimed ?? [])].sort((a, b) =>
          (byContact.get(a.contactId) ?? 0) - (byContact.get(b.contactId) ?? 0)
        )
        const batch: ClaimBatch = {
          claimed,
          available: row.available,
          openCalls: row.openCalls,
          owned: row.owned > 0,
          agentActive: row.agentActive,
          numberPresent: row.numberPresent
        }
        return batch
      },
      Effect.orDie
    )

    /**
     * Claims of a batch that were not started (the campaign paused, the window closed, the contact's
     * hours closed while the batch waited for the number's pace): each session still QUEUED is
     * deleted (an instance of its call that loaded it is fenced off: its first write finds no row),
     * its reservation released, its attempt deleted and its contact PENDING again (due at `until`
     * when given; CANCELLED when the campaign was aborted or ended meanwhile), in one statement. A
     * session already DIALING is left to run its course. Run under the entity's command lock, so an
     * Abort's cancellation comes wholly before or after it.
     */
    const unclaimBatch = (
      campaign: Campaign,
      claims: ReadonlyArray<
        { readonly sessionId: string; readonly contactId: ContactId; readonly until?: number | undefined }
      >
    ) =>
      claims.length === 0 ? Effect.void : sql`
        WITH x AS (
          SELECT * FROM jsonb_to_recordset(${
        JSON.stringify(claims.map((c) => ({
          session_id: c.sessionId,
          contact_id: c.contactId,
          until: c.until === undefined ? null : new Date(c.until).toISOString()
        })))
      }::jsonb) AS x(session_id uuid, contact_id uuid, until timestamptz)
        ), w AS (
          SELECT 1 FROM wallets WHERE tenant_id = ${campaign.tenantId} FOR UPDATE
        ), s AS (
          DELETE FROM call_sessions s USING x
          WHERE s.id = x.session_id AND s.status = 'QUEUED' AND EXISTS (SELECT 1 FROM w)
          RETURNING s.id
        ), r AS (
          DELETE FROM reservations r USING s
          WHERE r.tenant_id = ${campaign.tenantId} AND r.id = s.id::text AND r.status = 'open'
          RETURNING r.amount
        ), upd AS (
          UPDATE wallets SET reserved = reserved - (SELECT COALESCE(sum(amount), 0) FROM r),
            open_calls = open_calls - (SELECT count(*) FROM r), updated_at = now()
          WHERE tenant_id = ${campaign.tenantId} AND EXISTS (SELECT 1 FROM r)
        ), a AS (
          DELETE FROM campaign_attempts a USING s
          WHERE a.session_id = s.id AND a.status = 'CLAIMED' AND a.dialed_at IS NULL
          RETURNING a.contact_id
        )
        UPDATE campaign_contacts cc SET attempts = cc.attempts - 1,
          state = CASE WHEN (SELECT status FROM campaigns WHERE id = ${campaign.id})
            IN ('RUNNING', 'PAUSED', 'SCHEDULED')
            THEN 'PENDING' ELSE 'CANCELLED' END,
          next_attempt_at = GREATEST(cc.next_attempt_at, COALESCE(x.until, cc.next_attempt_at)),
          awaiting_local_hours = x.until IS NOT NULL
        FROM x
        WHERE cc.campaign_id = ${campaign.id} AND cc.contact_id = x.contact_id AND cc.state = 'IN_PROGRESS'
          AND cc.contact_id IN (SELECT contact_id FROM a)
      `.pipe(Effect.asVoid, Effect.orDie)

    /** A contact not to be dialed: its next attempt is recorded as skipped, with the reason, and it is final. */
    const skip = (campaign: Campaign, contactId: ContactId, now: number, reason: SkipReason = "DO_NOT_CALL") =>
      sql`
        WITH c AS (
          UPDATE campaign_contacts SET state = 'SKIPPED', attempts = attempts + 1
          WHERE campaign_id = ${campaign.id} AND contact_id = ${contactId} AND state = 'PENDING'
          RETURNING contact_id, attempts
        )
        INSERT INTO campaign_attempts (id, campaign_id, tenant_id, contact_id, attempt_number, status, skip_reason,
          claimed_at)
        SELECT ${uuidv7()}, ${campaign.id}, ${campaign.tenantId}, c.contact_id, c.attempts, 'SKIPPED', ${reason},
          ${new Date(
        now
      )}
        FROM c
      `.pipe(Effect.asVoid, Effect.orDie)

    /**
     * Due contacts whose local hours are closed wait for their next opening: their next attempt moves
     * there (never earlier than it was), and nothing else changes: no attempt, no count.
     */
    const hold = (id: CampaignId, holds: ReadonlyArray<Hold>) =>
      holds.length === 0 ? Effect.void : sql`
        UPDATE campaign_contacts cc SET
          next_attempt_at = GREATEST(cc.next_attempt_at, x.until),
          awaiting_local_hours = true
        FROM jsonb_to_recordset(${
        JSON.stringify(holds.map((h) => ({ contact_id: h.contactId, until: new Date(h.until).toISOString() })))
      }::jsonb)
          AS x(contact_id uuid, until timestamptz)
        WHERE cc.campaign_id = ${id} AND cc.contact_id = x.contact_id AND cc.state = 'PENDING'
      `.pipe(Effect.asVoid, Effect.orDie)

    /** The call could not be placed (no funds, tenant at its limit): the claim is undone, nothing was dialed. */
    const unclaim = (campaignId: CampaignId, attemptId: CampaignAttemptId) =>
      sql`
        WITH a AS (
          DELETE FROM campaign_attempts WHERE id = ${attemptId} AND status = 'CLAIMED' AND dialed_at IS NULL
          RETURNING contact_id
        )
        UPDATE campaign_contacts SET state = 'PENDING', attempts = attempts - 1
        WHERE campaign_id = ${campaignId} AND contact_id IN (SELECT contact_id FROM a)
      `.pipe(Effect.asVoid, Effect.orDie)

    const openClaims = (id: CampaignId) =>
      Rows.findAll(
        OpenClaimRow,
        sql`
        SELECT a.id, a.contact_id, c.phone_number, a.session_id
        FROM campaign_attempts a
        JOIN campaign_contacts c ON c.campaign_id = a.campaign_id AND c.contact_id = a.contact_id
        WHERE a.campaign_id = ${id} AND a.status = 'CLAIMED'
      `
      ).pipe(Effect.orDie)

    /** Abort: contacts not yet dialed will not be. */
    const cancelPending = (id: CampaignId) =>
      sql`UPDATE campaign_contacts SET state = 'CANCELLED' WHERE campaign_id = ${id} AND state = 'PENDING'`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    const attempts = (tenantId: TenantId, id: CampaignId, page: PageRequest) =>
      Rows.page(
        CampaignAttemptRow,
        sql`
          SELECT ${sql.literal(ATTEMPT_COLUMNS)}
          FROM campaign_attempts a
          JOIN campaign_contacts c ON c.campaign_id = a.campaign_id AND c.contact_id = a.contact_id
          WHERE a.campaign_id = ${id} AND a.tenant_id = ${tenantId}
          ORDER BY a.id LIMIT ${page.pageSize} OFFSET ${offsetOf(page)}
        `,
        sql`
          SELECT count(*)::int AS total FROM campaign_attempts WHERE campaign_id = ${id} AND tenant_id = ${tenantId}
        `
      )

    const contactCounts = (id: CampaignId) =>
      Rows.findAll(
        ContactCountRow,
        sql`
        SELECT state, count(*)::int AS n, (count(*) FILTER (WHERE awaiting_local_hours))::int AS awaiting
        FROM campaign_contacts WHERE campaign_id = ${id} GROUP BY state
      `
      ).pipe(
        Effect.map((rows): ContactCounts => {
          const of = (s: ContactState) => rows.find((r) => r.state === s)?.n ?? 0
          return {
            pending: of("PENDING"),
            inProgress: of("IN_PROGRESS"),
            answered: of("ANSWERED"),
            exhausted: of("EXHAUSTED"),
            skipped: of("SKIPPED"),
            cancelled: of("CANCELLED"),
            awaitingLocalHours: rows.find((r) => r.state === "PENDING")?.awaiting ?? 0
          }
        }),
        Effect.orDie
      )

    const attemptCounts = (id: CampaignId) =>
      Rows.findAll(
        AttemptCountRow,
        sql`
        SELECT status, outcome, count(*)::int AS n FROM campaign_attempts WHERE campaign_id = ${id}
          GROUP BY status, outcome
      `
      ).pipe(Effect.orDie)

    /** Campaigns whose entity has work: a timer (SCHEDULED) or a dial loop (RUNNING). */
    const active = (limit: number) =>
      Rows.findAll(
        CampaignIdRow,
        sql`SELECT id FROM campaigns WHERE status IN ('SCHEDULED', 'RUNNING') ORDER BY id LIMIT ${limit}`
      ).pipe(Effect.map((rows) => rows.map((r) => r.id)), Effect.orDie)

    // -- do-not-call ----------------------------------------------------------

    const addDnc = Effect.fn("CampaignsRepo.addDnc")(
      function*(tenantId: TenantId, phoneNumber: string, reason: string | null) {
        yield* sql`
          INSERT INTO dnc_numbers (tenant_id, phone_number, reason) VALUES (${tenantId}, ${phoneNumber}, ${reason})
          ON CONFLICT (tenant_id, phone_number) DO UPDATE SET reason = COALESCE(EXCLUDED.reason, dnc_numbers.reason)
        `
        return yield* Rows.single(
          DncRow,
          sql`
          SELECT phone_number, reason, created_at FROM dnc_numbers WHERE tenant_id = ${tenantId}
            AND phone_number = ${phoneNumber}
        `
        )
      },
      Effect.orDie
    )

    const listDnc = (tenantId: TenantId, page: PageRequest) =>
      Rows.page(
        DncRow,
        sql`
          SELECT phone_number, reason, created_at FROM dnc_numbers WHERE tenant_id = ${tenantId}
          ORDER BY phone_number LIMIT ${page.pageSize} OFFSET ${offsetOf(page)}
        `,
        sql`SELECT count(*)::int AS total FROM dnc_numbers WHERE tenant_id = ${tenantId}`
      )

    const removeDnc = (tenantId: TenantId, phoneNumber: string) =>
      sql`DELETE FROM dnc_numbers WHERE tenant_id = ${tenantId} AND phone_number = ${phoneNumber} RETURNING 1`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )

    return {
      create,
      list,
      find,
      update,
      remove,
      claimOwnership,
      ownedElsewhere,
      writeState,
      snapshot,
      workload,
      pass,
      references,
      claim,
      claimBatch,
      unclaimBatch,
      skip,
      hold,
      unclaim,
      openClaims,
      cancelPending,
      attempts,
      contactCounts,
      attemptCounts,
      active,
      addDnc,
      listDnc,
      removeDnc,
      withTransaction: sql.withTransaction
    } as const
  })
}) {}
