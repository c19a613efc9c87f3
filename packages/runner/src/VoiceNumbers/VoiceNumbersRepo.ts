import * as SqlClient from "@effect/sql/SqlClient"
import type { TenantId, VoiceNumberId } from "@voiceagent/domain/Ids"
import { offsetOf, type PageRequest } from "@voiceagent/domain/Pagination"
import type { PhoneProvider } from "@voiceagent/domain/Phone"
import { VoiceNumber } from "@voiceagent/domain/VoiceNumbers"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { v7 as uuidv7 } from "uuid"
import * as ListenerCache from "../Calls/ListenerCache.js"
import { isUniqueViolation } from "../Sql/SqlErrors.js"
import { fromDatabase } from "../Sql/Rows.js"

export class NumberAlreadyRegistered extends Data.TaggedError("NumberAlreadyRegistered")<{}> {}

const COLUMNS = "id, phone_number, provider, label, created_at, updated_at"

export class VoiceNumbersRepo extends Effect.Service<VoiceNumbersRepo>()("VoiceNumbers/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)

    const create = (tenantId: TenantId, input: { phoneNumber: string; provider: PhoneProvider; label: string | null }) =>
      sql<VoiceNumber>`
        INSERT INTO voice_numbers (id, tenant_id, phone_number, provider, label)
        VALUES (${uuidv7()}, ${tenantId}, ${input.phoneNumber}, ${input.provider}, ${input.label})
        RETURNING ${columns}
      `.pipe(
        Effect.map(([row]) => new VoiceNumber(row!, fromDatabase)),
        Effect.catchTag("SqlError", (e) =>
          isUniqueViolation(e, "voice_numbers_tenant_number_key") ? Effect.fail(new NumberAlreadyRegistered()) : Effect.die(e)),
        Effect.ensuring(ListenerCache.invalidate(tenantId))
      )

    const list = (tenantId: TenantId, page: PageRequest) =>
      Effect.all([
        sql<VoiceNumber>`
          SELECT ${columns} FROM voice_numbers WHERE tenant_id = ${tenantId}
          ORDER BY id DESC LIMIT ${page.pageSize} OFFSET ${offsetOf(page)}
        `,
        sql<{ total: number }>`SELECT count(*) AS total FROM voice_numbers WHERE tenant_id = ${tenantId}`
      ]).pipe(
        Effect.map(([rows, [count]]) => ({ items: rows.map((r) => new VoiceNumber(r, fromDatabase)), total: count!.total })),
        Effect.orDie
      )

    const find = (tenantId: TenantId, id: VoiceNumberId) =>
      sql<VoiceNumber>`SELECT ${columns} FROM voice_numbers WHERE id = ${id} AND tenant_id = ${tenantId}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (r) => new VoiceNumber(r, fromDatabase))),
        Effect.orDie
      )

    /**
     * `find`, kept per process (`ListenerCache`: forgotten at once by this process's creates and
     * removes, other processes' seen within its time to live): what placing a call reads.
     */
    const findCached = (tenantId: TenantId, id: VoiceNumberId) => ListenerCache.cached(tenantId, `voice-number:${id}`, find(tenantId, id))

    const remove = (tenantId: TenantId, id: VoiceNumberId) =>
      sql<{ id: string }>`DELETE FROM voice_numbers WHERE id = ${id} AND tenant_id = ${tenantId} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie,
        Effect.ensuring(ListenerCache.invalidate(tenantId))
      )

    return { create, list, find, findCached, remove } as const
  })
}) {}
