import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentTenant } from "@voiceagent/domain/Auth"
import { CommsApi } from "@voiceagent/domain/CommsApi"
import { QueryResult } from "@voiceagent/domain/KnowledgeBases"
import { makePage } from "@voiceagent/domain/Pagination"
import { KnowledgeBases } from "@voiceagent/runner/Knowledge/KnowledgeBases"
import * as Effect from "effect/Effect"
import { jsonAnswer } from "../Responses.js"

const queryAnswer = jsonAnswer(QueryResult)

export const KnowledgeBasesHttpLive = HttpApiBuilder.group(
  CommsApi,
  "knowledgeBases",
  (handlers) =>
    Effect.gen(function*() {
      const kbs = yield* KnowledgeBases
      const tenant = Effect.map(CurrentTenant, (t) => t.tenantId)
      return handlers
        .handle("createKnowledgeBase", ({ payload }) =>
          Effect.flatMap(tenant, (tenantId) => kbs.create(tenantId, payload)))
        .handle("listKnowledgeBases", ({ urlParams }) =>
          Effect.gen(function*() {
            const { items, total } = yield* kbs.list(yield* tenant, urlParams)
            return makePage(items, total, urlParams)
          }))
        .handle("getKnowledgeBase", ({ path }) =>
          Effect.flatMap(tenant, (tenantId) => kbs.get(tenantId, path.kbId)))
        .handle("updateKnowledgeBase", ({ path, payload }) =>
          Effect.flatMap(tenant, (tenantId) =>
            kbs.update(tenantId, path.kbId, payload)))
        .handle("deleteKnowledgeBase", ({ path }) =>
          Effect.flatMap(tenant, (tenantId) =>
            kbs.remove(tenantId, path.kbId)))
        .handle("addSource", ({ path, payload }) =>
          Effect.flatMap(tenant, (tenantId) =>
            kbs.addSource(tenantId, path.kbId, payload)))
        .handle("uploadDocuments", ({ path, payload }) =>
          Effect.flatMap(tenant, (tenantId) =>
            kbs.upload(tenantId, path.kbId, payload.file)))
        .handle("listDocuments", ({ path, urlParams }) =>
          Effect.gen(function*() {
            const { items, total } = yield* kbs.listDocuments(yield* tenant, path.kbId, urlParams)
            return makePage(items, total, urlParams)
          }))
        .handle("getDocument", ({ path }) =>
          Effect.flatMap(tenant, (tenantId) =>
            kbs.getDocument(tenantId, path.kbId, path.documentId)))
        .handle("deleteDocument", ({ path }) =>
          Effect.flatMap(tenant, (tenantId) =>
            kbs.removeDocument(tenantId, path.kbId, path.documentId)))
        .handle("createIngestionJob", ({ path, urlParams }) =>
          Effect.flatMap(tenant, (tenantId) =>
            kbs.ingest(tenantId, path.kbId, urlParams.full === "true")))
        .handle("listIngestionJobs", ({ path, urlParams }) =>
          Effect.gen(function*() {
            const { items, total } = yield* kbs.listJobs(yield* tenant, path.kbId, urlParams)
            return makePage(items, total, urlParams)
          }))
        .handle("getIngestionJob", ({ path }) =>
          Effect.flatMap(tenant, (tenantId) =>
            kbs.getJob(tenantId, path.kbId, path.jobId)))
        .handle("queryKnowledgeBase", ({ path, payload }) =>
          Effect.flatMap(tenant, (tenantId) =>
            Effect.map(kbs.query(tenantId, path.kbId, payload), queryAnswer)))
    })
)
