import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { errorFields, type HttpError, httpError } from "./ApiError.js"

/** Which process answered: a supervisor (`cluster:local`) checks that it is the child it started. */
export const ProcessId = Schema.Int.annotations({ description: "The answering process's id" })

export class Alive extends Schema.Class<Alive>("Alive")({
  status: Schema.Literal("ok"),
  service: Schema.String,
  pid: ProcessId
}) {}

export const ReadinessChecks = Schema.Struct({
  database: Schema.Literal("ok", "unreachable"),
  migrations: Schema.Literal("ok", "pending")
})

export class Ready extends Schema.Class<Ready>("Ready")({
  status: Schema.Literal("ready"),
  service: Schema.String,
  pid: ProcessId,
  checks: ReadinessChecks
}) {}

export class NotReady extends Schema.TaggedError<NotReady>()("NotReady", errorFields("Service is not ready")) {
  static readonly http: HttpError<NotReady> = httpError(this, {
    status: 503,
    code: "NOT_READY",
    description: "The database is unreachable or migrations are pending; `details` holds the checks"
  })
}

export class HealthGroup extends HttpApiGroup.make("health")
  .add(HttpApiEndpoint.get("healthz", "/healthz").addSuccess(Alive).annotate(OpenApi.Summary, "Liveness probe"))
  .add(
    HttpApiEndpoint.get("readyz", "/readyz")
      .addSuccess(Ready)
      .addError(NotReady.http)
      .annotate(OpenApi.Summary, "Readiness probe")
  )
  .annotate(OpenApi.Description, "Liveness (process up) and readiness (database reachable, migrations applied)")
{}
