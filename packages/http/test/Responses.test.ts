import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpServer from "@effect/platform/HttpServer"
import { assert, describe, it } from "@effect/vitest"
import type { ApiKeyId, KbDocumentId, KnowledgeBaseId, TenantId, UserId } from "@voiceagent/domain/Ids"
import { QueryResult, RetrievedChunk } from "@voiceagent/domain/KnowledgeBases"
import { Profile, Tenant, User } from "@voiceagent/domain/Users"
import { jsonAnswer, withoutRefinements } from "@voiceagent/http/Responses"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

const user = new User({
  id: "0190a3c4-0000-7000-8000-000000000001" as UserId,
  email: "a@example.com",
  tenantId: "0190a3c4-0000-7000-8000-000000000002" as TenantId,
  createdAt: new Date("2026-11-21T07:29:49.596Z")
})
const tenant = new Tenant({
  id: "0190a3c4-0000-7000-8000-000000000002" as TenantId,
  name: "Acme",
  currency: "USD",
  createdAt: new Date("2026-11-21T07:29:50.001Z")
})
const profiles = [
  new Profile({
    user,
    tenant,
    credential: { type: "api_key", apiKeyId: "0190a3c4-0000-7000-8000-000000000003" as ApiKeyId }
  }),
  new Profile({
    user: new User({ ...user, tenantId: null }),
    tenant: null,
    credential: { type: "session", apiKeyId: null }
  })
]
const chunk = (index: number, title: string | null) =>
  new RetrievedChunk({
    chunkId: `0190a3c4-0000-7000-8000-000000000005:${index}`,
    score: 0.5 - index / 10,
    text: `passage ${index} — “quoted” \u2028 text`,
    documentId: "0190a3c4-0000-7000-8000-000000000005" as KbDocumentId,
    chunkIndex: index,
    source: { type: index === 0 ? "FAQ" : "TEXT", title, url: null, fileName: index === 2 ? "notes.md" : null }
  })
const results = [
  new QueryResult({
    kbId: "0190a3c4-0000-7000-8000-000000000004" as KnowledgeBaseId,
    query: "what does it cost?",
    threshold: 0.2,
    embedder: "offline-hash-v1",
    items: [chunk(0, "Prices"), chunk(1, null), chunk(2, "Notes")]
  }),
  new QueryResult({
    kbId: "0190a3c4-0000-7000-8000-000000000004" as KnowledgeBaseId,
    query: "",
    threshold: 0,
    embedder: "e",
    items: []
  })
]

const Created = Schema.Struct({ name: Schema.NonEmptyString, at: Schema.DateFromString })

class Answers extends HttpApiGroup.make("answers")
  .add(
    HttpApiEndpoint.get("profile", "/profile/:i/:mine").setPath(
      Schema.Struct({ i: Schema.NumberFromString, mine: Schema.String })
    ).addSuccess(Profile)
  )
  .add(
    HttpApiEndpoint.get("query", "/query/:i/:mine").setPath(
      Schema.Struct({ i: Schema.NumberFromString, mine: Schema.String })
    ).addSuccess(QueryResult)
  )
  .add(
    HttpApiEndpoint.get("created", "/created/:mine").setPath(Schema.Struct({ mine: Schema.String })).addSuccess(
      Created,
      { status: 201 }
    )
  )
{}
class Api extends HttpApi.make("answers").add(Answers) {}

const profileAnswer = jsonAnswer(Profile)
const queryAnswer = jsonAnswer(QueryResult)
const createdAnswer = jsonAnswer(Created.annotations(HttpApiSchema.annotations({ status: 201 })))
const created = { name: "x", at: new Date("2026-01-31T09:00:00.000Z") }

const AnswersLive = HttpApiBuilder.group(Api, "answers", (handlers) =>
  handlers
    .handle("profile", ({ path }) =>
      Effect.succeed(path.mine === "yes" ? profileAnswer(profiles[path.i]!) : profiles[path.i]!))
    .handle("query", ({ path }) =>
      Effect.succeed(path.mine === "yes" ? queryAnswer(results[path.i]!) : results[path.i]!))
    .handle("created", ({ path }) => Effect.succeed(path.mine === "yes" ? createdAnswer(created) : created)))

const answer = async (handler: (request: Request) => Promise<Response>, path: string) => {
  const response = await handler(new Request(`http://local${path}`))
  return { status: response.status, type: response.headers.get("content-type"), body: await response.text() }
}

interface Tree {
  readonly at: Date
  readonly n: number
  readonly kids: ReadonlyArray<Tree>
}
interface TreeEncoded {
  readonly at: string
  readonly n: number
  readonly kids: ReadonlyArray<TreeEncoded>
}

describe("answers built by the handler", () => {
  it("are what the platform encodes from the endpoint's success schema: status, media type, body", async () => {
    const { dispose, handler } = HttpApiBuilder.toWebHandler(
      Layer.mergeAll(HttpApiBuilder.api(Api).pipe(Layer.provide(AnswersLive)), HttpServer.layerContext)
    )
    try {
      for (const route of ["profile/0", "profile/1", "query/0", "query/1", "created"]) {
        const platform = await answer(handler, `/${route}/no`)
        const ours = await answer(handler, `/${route}/yes`)
        assert.strictEqual(platform.status, route === "created" ? 201 : 200)
        assert.deepStrictEqual(ours, platform, route)
      }
    } finally {
      await dispose()
    }
  })

  it("keep transformations and drop only filters", () => {
    const Tree: Schema.Schema<Tree, TreeEncoded> = Schema.Struct({
      at: Schema.Date,
      n: Schema.Int.pipe(Schema.positive()),
      kids: Schema.Array(Schema.suspend((): Schema.Schema<Tree, TreeEncoded> => Tree))
    })
    const encode = Schema.encodeSync(Schema.make(withoutRefinements(Tree.ast)))
    const at = new Date("2026-01-31T09:00:00.000Z")
    const tree = { at, n: 1, kids: [{ at, n: 2, kids: [] }] }
    assert.deepStrictEqual(encode(tree), Schema.encodeSync(Tree)(tree))
    // a filter is not checked again; the value is still encoded
    assert.deepStrictEqual(encode({ at, n: -1.5, kids: [] }), { at: "2026-01-31T09:00:00.000Z", n: -1.5, kids: [] })
  })
})
