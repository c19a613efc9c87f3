import * as SqlClient from "@effect/sql/SqlClient"
import { type TenantId, VoiceNumberId } from "@voiceagent/domain/Ids"
import { offsetOf, type PageRequest } from "@voiceagent/domain/Pagination"
import type { PhoneProvider } from "@voiceagent/domain/Phone"
import { VoiceNumber } from "@voiceagent/domain/VoiceNumbers"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { v7 as uuidv7 } from "uuid"
import * as ListenerCache from "../Shared/ListenerCache.js"
import * as Rows from "../Sql/Rows.js"
import { isUniqueViolation } from "../Sql/SqlErrors.js"

export class NumberAlreadyRegistered extends Data.TaggedError("NumberAlreadyRegistered")<{}> {}

const VoiceNumberRow = Rows.of(VoiceNumber)
const IdRow = Schema.Struct({ id: VoiceNumberId })

const COLUMNS = "id, phone_number, provider, label, created_at, updated_at"

export class VoiceNumbersRepo extends Effect.Service<VoiceNumbersRepo>()("VoiceNumbers/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)

    const create = (
      tenantId: TenantId,
      input: { phoneNumber: string; provider: PhoneProvider; label: string | null }
    ) =>
      Rows.single(
        VoiceNumberRow,
        sql`
        INSERT INTO voice_numbers (id, tenant_id, phone_number, provider, label)
        VALUES (${uuidv7()}, ${tenantId}, ${input.phoneNumber}, ${input.provider}, ${input.label})
        RETURNING ${columns}
      `
      ).pipe(
        Effect.catchTag("SqlError", (e) =>
          isUniqueViolation(e, "voice_numbers_tenant_number_key")
            ? Effect.fail(new NumberAlreadyRegistered())
            : Effect.die(e)),
        Effect.ensuring(ListenerCache.invalidate(tenantId))
      )

    const list = (tenantId: TenantId, page: PageRequest) =>
      Rows.page(
        VoiceNumberRow,
        sql`
          SELECT ${columns} FROM voice_numbers WHERE tenant_id = ${tenantId}
          ORDER BY id DESC LIMIT ${page.pageSize} OFFSET ${offsetOf(page)}
        `,
        sql`SELECT count(*) AS total FROM voice_numbers WHERE tenant_id = ${tenantId}`
      )

    const find = (tenantId: TenantId, id: VoiceNumberId) =>
      Rows.findOne(
        VoiceNumberRow,
        sql`SELECT ${columns} FROM voice_numbers WHERE id = ${id} AND tenant_id = ${tenantId}`
      ).pipe(
        Effect.orDie
      )

    /**
     * `find`, kept per process (`ListenerCache`: forgotten at once by this process's creates and
     * removes, other processes' seen within its time to live): what placing a call reads.
     */
    const findCached = (tenantId: TenantId, id: VoiceNumberId) =>
      ListenerCache.cached(tenantId, `voice-number:${id}`, find(tenantId, id))

    const remove = (tenantId: TenantId, id: VoiceNumberId) =>
      Rows.findAll(IdRow, sql`DELETE FROM voice_numbers WHERE id = ${id} AND tenant_id = ${tenantId} RETURNING id`)
        .pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie,
          Effect.ensuring(ListenerCache.invalidate(tenantId))
        )

    return { create, list, find, findCached, remove } as const
  })
}) {}
