import * as SqlClient from "@effect/sql/SqlClient"
import { Agent, AgentChannel, AgentSettings, type AgentState, Persona } from "@voiceagent/domain/Agents"
import { AgentVoice } from "@voiceagent/domain/AgentVoice"
import { AgentId, PersonaId, type TenantId } from "@voiceagent/domain/Ids"
import { offsetOf, type PageRequest } from "@voiceagent/domain/Pagination"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { v7 as uuidv7 } from "uuid"
import * as ListenerCache from "../Shared/ListenerCache.js"
import * as Rows from "../Sql/Rows.js"
import { effectiveVoice, VoiceCatalog, type VoiceCatalogShape } from "../Voice/VoiceCatalog.js"

/** An agent's columns: jsonb `settings` and `voice` in their encoded (JSON) form. */
const AgentRow = Schema.Struct({
  id: AgentId,
  brainId: Schema.UUID,
  personaId: Schema.NullOr(PersonaId),
  name: Schema.String,
  isActive: Schema.Boolean,
  greetMessage: Schema.String,
  agentPrompt: Schema.String,
  metadata: Rows.JsonObjectColumn,
  channel: Schema.NullOr(AgentChannel),
  settings: AgentSettings,
  connectionId: Schema.NullOr(Schema.String),
  webhookToken: Schema.NullOr(Schema.String),
  webhookTokenAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  knowledgeBaseIds: Schema.Array(Schema.UUID),
  voice: AgentVoice
})
type AgentRow = typeof AgentRow.Type

const PersonaRow = Rows.of(Persona)

export interface AgentRecord {
  readonly agent: Agent
  readonly webhookToken: string | null
  readonly webhookTokenAt: Date | null
}

const toRecord = (catalog: VoiceCatalogShape) => (row: AgentRow): AgentRecord => ({
  agent: new Agent({
    id: row.id,
    agent_id: row.brainId,
    brain: { id: row.brainId },
    name: row.name,
    is_active: row.isActive,
    agent_persona_id: row.personaId,
    greetMessage: row.greetMessage,
    agent_prompt: row.agentPrompt,
    metadata: row.metadata,
    channel: row.channel,
    settings: row.settings,
    connectionId: row.connectionId,
    knowledgeBaseIds: row.knowledgeBaseIds,
    webhookTokenIssued: row.webhookToken !== null,
    voice: row.voice,
    effectiveVoice: effectiveVoice(catalog, row.voice),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }, Rows.validated),
  webhookToken: row.webhookToken,
  webhookTokenAt: row.webhookTokenAt
})

export const stateOf = (agent: Agent): AgentState => ({
  name: agent.name,
  greetMessage: agent.greetMessage,
  agent_prompt: agent.agent_prompt,
  metadata: agent.metadata,
  channel: agent.channel,
  settings: agent.settings,
  connectionId: agent.connectionId,
  is_active: agent.is_active,
  webhookTokenIssued: agent.webhookTokenIssued,
  voice: agent.voice
})

const AGENT_COLUMNS = `id, brain_id, persona_id, name, is_active, greet_message, agent_prompt, metadata, channel,
  settings, voice, connection_id, webhook_token, webhook_token_at, created_at, updated_at,
  (SELECT coalesce(json_agg(l.kb_id ORDER BY l.position), '[]'::json) FROM agent_knowledge_bases l
    WHERE l.agent_id = agents.id) AS knowledge_base_ids`

export class AgentsRepo extends Effect.Service<AgentsRepo>()("Agents/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(AGENT_COLUMNS)
    // what this platform's voice can do, as configured where the repository is built
    const catalog = yield* VoiceCatalog
    const toRecordHere = (row: AgentRow) => Effect.succeed(toRecord(catalog)(row))
    const toAgent = (row: AgentRow) => Effect.map(toRecordHere(row), (r) => r.agent)

    const listPersonas = (page: PageRequest) =>
      Rows.page(
        PersonaRow,
        sql`
          SELECT id, name, description, default_prompt, default_greeting FROM personas
          ORDER BY sort_order, id LIMIT ${page.pageSize} OFFSET ${offsetOf(page)}
        `,
        sql`SELECT count(*) AS total FROM personas`
      )

    const findPersona = (id: PersonaId) =>
      Rows.findOne(
        PersonaRow,
        sql`SELECT id, name, description, default_prompt, default_greeting FROM personas WHERE id = ${id}`
      )
        .pipe(Effect.orDie)

    const create = (tenantId: TenantId, persona: Persona, name: string) =>
      Rows.single(
        AgentRow,
        sql`
        INSERT INTO agents (id, tenant_id, brain_id, persona_id, name, greet_message, agent_prompt)
        VALUES (${uuidv7()}, ${tenantId}, ${uuidv7()}, ${persona.id}, ${name}, ${persona.defaultGreeting},
          ${persona.defaultPrompt})
        RETURNING ${columns}
      `
      ).pipe(Effect.flatMap(toAgent), Effect.orDie)

    const list = (tenantId: TenantId, page: PageRequest) =>
      Rows.page(
        AgentRow,
        sql`
          SELECT ${columns} FROM agents WHERE tenant_id = ${tenantId}
          ORDER BY id DESC LIMIT ${page.pageSize} OFFSET ${offsetOf(page)}
        `,
        sql`SELECT count(*) AS total FROM agents WHERE tenant_id = ${tenantId}`
      ).pipe(Effect.flatMap(({ items, total }) =>
        Effect.map(Effect.forEach(items, toAgent), (agents) => ({ items: agents, total }))
      ))

    const rowOf = (tenantId: TenantId, id: AgentId, options: { readonly forUpdate?: boolean } = {}) =>
      Rows.findOne(
        AgentRow,
        sql`
        SELECT ${columns} FROM agents WHERE id = ${id} AND tenant_id = ${tenantId}
        ${options.forUpdate === true ? sql.literal("FOR UPDATE") : sql.literal("")}
      `
      ).pipe(Effect.orDie)

    const recordOf = (row: Option.Option<AgentRow>) =>
      Option.isNone(row) ? Effect.succeed(Option.none<AgentRecord>()) : Effect.asSome(toRecordHere(row.value))

    const find = (tenantId: TenantId, id: AgentId, options: { readonly forUpdate?: boolean } = {}) =>
      Effect.flatMap(rowOf(tenantId, id, options), recordOf)

    /**
     * `find`, its row kept per process (`ListenerCache`: forgotten at once by this process's writes to the
     * tenant's agents, seen from other processes' within its time to live): what a call needs of its
     * agent as it dials, without a statement per call.
     */
    const findCached = (tenantId: TenantId, id: AgentId) =>
      // the row is kept, not the record: its effective voice is resolved with this repository's catalog
      Effect.flatMap(ListenerCache.cached(tenantId, `agent:${id}`, rowOf(tenantId, id)), recordOf)

    /** Writes the agent's patchable state; the caller holds the row (see `find` with forUpdate). */
    const save = (tenantId: TenantId, id: AgentId, state: AgentState) =>
      Rows.single(
        AgentRow,
        sql`
        UPDATE agents SET
          name = ${state.name},
          greet_message = ${state.greetMessage},
          agent_prompt = ${state.agent_prompt},
          metadata = ${JSON.stringify(state.metadata)}::jsonb,
          channel = ${state.channel},
          settings = ${JSON.stringify(state.settings)}::jsonb,
          voice = ${JSON.stringify(state.voice)}::jsonb,
          connection_id = ${state.connectionId},
          is_active = ${state.is_active},
          updated_at = now()
        WHERE id = ${id} AND tenant_id = ${tenantId}
        RETURNING ${columns}
      `
      ).pipe(
        Effect.flatMap(toAgent),
        Effect.orDie,
        // the messaging listener reads the agent's settings (its senders, its language)
        Effect.ensuring(ListenerCache.invalidate(tenantId))
      )

    /** Sets the webhook token once; later calls get the first one back. */
    const ensureWebhookToken = (tenantId: TenantId, id: AgentId, candidate: string) =>
      Rows.findOne(
        Schema.Struct({ webhookToken: Schema.String, webhookTokenAt: Schema.DateFromSelf }),
        sql`
        UPDATE agents SET
          webhook_token = COALESCE(webhook_token, ${candidate}),
          webhook_token_at = COALESCE(webhook_token_at, now())
        WHERE id = ${id} AND tenant_id = ${tenantId}
        RETURNING webhook_token, webhook_token_at
      `
      ).pipe(Effect.orDie)

    /** For the public webhook: the agent's token, whatever the tenant. */
    const webhookTokenOf = (id: AgentId) =>
      Rows.findOne(
        Schema.Struct({ webhookToken: Schema.NullOr(Schema.String) }),
        sql`SELECT webhook_token FROM agents WHERE id = ${id}`
      ).pipe(
        Effect.map(Option.flatMap((r) => Option.fromNullable(r.webhookToken))),
        Effect.orDie
      )

    /**
     * Replaces the agent's knowledge bases, in the order given; answers the ids that are not the
     * tenant's (and changes nothing then). The caller holds the agent's row.
     */
    const setKnowledgeBases = Effect.fn("AgentsRepo.setKnowledgeBases")(
      function*(tenantId: TenantId, id: AgentId, kbIds: ReadonlyArray<string>) {
        const found = kbIds.length === 0 ? [] : yield* Rows.findAll(
          Schema.Struct({ id: Schema.String }),
          sql`
          SELECT id FROM knowledge_bases WHERE tenant_id = ${tenantId} AND id IN ${sql.in(kbIds)}
        `
        )
        const known = new Set(found.map((r) => r.id))
        const unknown = kbIds.filter((kb) => !known.has(kb))
        if (unknown.length > 0) return unknown
        yield* sql`DELETE FROM agent_knowledge_bases WHERE agent_id = ${id}`
        if (kbIds.length > 0) {
          yield* sql`INSERT INTO agent_knowledge_bases ${
            sql.insert(kbIds.map((kbId, position) => ({ agentId: id, kbId, position })))
          }`
        }
        return []
      },
      Effect.orDie,
      (effect, tenantId) => Effect.ensuring(effect, ListenerCache.invalidate(tenantId))
    )

    return {
      listPersonas,
      findPersona,
      create,
      list,
      find,
      findCached,
      save,
      ensureWebhookToken,
      webhookTokenOf,
      setKnowledgeBases
    } as const
  })
}) {}
