import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentTenant } from "@voiceagent/domain/Auth"
import { CommsApi } from "@voiceagent/domain/CommsApi"
import { makePage } from "@voiceagent/domain/Pagination"
import { VoiceNumberExists, VoiceNumberNotFound } from "@voiceagent/domain/VoiceNumbers"
import { VoiceNumbersRepo } from "@voiceagent/runner/VoiceNumbers/VoiceNumbersRepo"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

export const VoiceNumbersHttpLive = HttpApiBuilder.group(
  CommsApi,
  "voiceNumbers",
  (handlers) =>
    Effect.gen(function*() {
      const numbers = yield* VoiceNumbersRepo
      return handlers
        .handle("createVoiceNumber", ({ payload }) =>
          Effect.flatMap(CurrentTenant, ({ tenantId }) =>
            numbers.create(tenantId, {
              phoneNumber: payload.phoneNumber,
              provider: payload.provider,
              label: payload.label ?? null
            })
              .pipe(Effect.catchTag("NumberAlreadyRegistered", () =>
                new VoiceNumberExists()))))
        .handle("listVoiceNumbers", ({ urlParams }) =>
          Effect.flatMap(CurrentTenant, ({ tenantId }) =>
            Effect.map(numbers.list(tenantId, urlParams), ({ items, total }) =>
              makePage(items, total, urlParams))))
        .handle("getVoiceNumber", ({ path }) =>
          Effect.flatMap(CurrentTenant, ({ tenantId }) =>
            Effect.flatMap(
              numbers.find(tenantId, path.id),
              Option.match({
                onNone: () =>
                  Effect.fail(new VoiceNumberNotFound()),
                onSome: Effect.succeed
              })
            )))
        .handle("deleteVoiceNumber", ({ path }) =>
          Effect.flatMap(CurrentTenant, ({ tenantId }) =>
            Effect.flatMap(numbers.remove(tenantId, path.id), (removed) =>
              removed ? Effect.void : Effect.fail(new VoiceNumberNotFound()))))
    })
)
