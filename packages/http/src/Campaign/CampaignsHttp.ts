import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { formatIssuePath, ValidationFailed } from "@voiceagent/domain/ApiError"
import { CurrentTenant } from "@voiceagent/domain/Auth"
import { CampaignApi } from "@voiceagent/domain/CampaignApi"
import { DncNotFound, ScheduleCampaignRequest } from "@voiceagent/domain/Campaigns"
import { makePage } from "@voiceagent/domain/Pagination"
import { Campaigns } from "@voiceagent/runner/Campaigns/Campaigns"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/** The schedule body is optional: empty, or `{scheduledAt?}` as JSON. */
const scheduleBody = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const text = yield* request.text.pipe(Effect.orElseSucceed(() => ""))
  if (text.trim() === "") return null
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return yield* new ValidationFailed({ message: "Invalid request: the body is not JSON" })
  }
  const decoded = Schema.decodeUnknownEither(ScheduleCampaignRequest)(json, { errors: "all" })
  if (Either.isLeft(decoded)) {
    const issues = ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map((i) => ({
      path: formatIssuePath(i.path),
      message: i.message
    }))
    return yield* ValidationFailed.fromIssues(issues)
  }
  return decoded.right.scheduledAt ?? null
})

export const CampaignsHttpLive = HttpApiBuilder.group(CampaignApi, "campaigns", (handlers) =>
  Effect.gen(function*() {
    const campaigns = yield* Campaigns
    const tenant = Effect.map(CurrentTenant, (t) => t.tenantId)
    return handlers
      .handle("createCampaign", ({ payload }) =>
        Effect.flatMap(tenant, (tenantId) => campaigns.create(tenantId, payload)))
      .handle("listCampaigns", ({ urlParams }) =>
        Effect.gen(function*() {
          const { items, total } = yield* campaigns.list(yield* tenant, urlParams.status, urlParams)
          return makePage(items, total, urlParams)
        }))
      .handle("getCampaign", ({ path }) =>
        Effect.flatMap(tenant, (tenantId) => campaigns.get(tenantId, path.id)))
      .handle("updateCampaign", ({ path, payload }) =>
        Effect.flatMap(tenant, (tenantId) =>
          campaigns.update(tenantId, path.id, payload)))
      .handle("scheduleCampaign", ({ path }) =>
        Effect.gen(function*() {
          const at = yield* scheduleBody
          return yield* campaigns.schedule(yield* tenant, path.id, at)
        }))
      .handle("pauseCampaign", ({ path }) =>
        Effect.flatMap(tenant, (tenantId) => campaigns.pause(tenantId, path.id)))
      .handle("resumeCampaign", ({ path }) => Effect.flatMap(tenant, (tenantId) => campaigns.resume(tenantId, path.id)))
      .handle("abortCampaign", ({ path }) => Effect.flatMap(tenant, (tenantId) => campaigns.abort(tenantId, path.id)))
      .handle("deleteCampaign", ({ path }) => Effect.flatMap(tenant, (tenantId) => campaigns.remove(tenantId, path.id)))
      .handle("listCampaignAttempts", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const { items, total } = yield* campaigns.attempts(yield* tenant, path.id, urlParams)
          return makePage(items, total, urlParams)
        }))
      .handle("getCampaignProgress", ({ path }) =>
        Effect.flatMap(tenant, (tenantId) =>
          campaigns.progress(tenantId, path.id)))
  }))

export const DncHttpLive = HttpApiBuilder.group(CampaignApi, "dnc", (handlers) =>
  Effect.gen(function*() {
    const campaigns = yield* Campaigns
    const tenant = Effect.map(CurrentTenant, (t) => t.tenantId)
    return handlers
      .handle("addDnc", ({ payload }) =>
        Effect.flatMap(tenant, (tenantId) =>
          campaigns.addDnc(tenantId, payload.phoneNumber, payload.reason ?? null)))
      .handle("listDnc", ({ urlParams }) =>
        Effect.gen(function*() {
          const { items, total } = yield* campaigns.listDnc(yield* tenant, urlParams)
          return makePage(items, total, urlParams)
        }))
      .handle("removeDnc", ({ path }) =>
        Effect.flatMap(tenant, (tenantId) =>
          Effect.flatMap(campaigns.removeDnc(tenantId, path.phoneNumber), (removed) =>
            removed ? Effect.void : Effect.fail(new DncNotFound()))))
  }))
