import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentTenant } from "@voiceagent/domain/Auth"
import { CampaignApi } from "@voiceagent/domain/CampaignApi"
import { makePage } from "@voiceagent/domain/Pagination"
import { ContactLists } from "@voiceagent/runner/Contacts/ContactLists"
import * as Effect from "effect/Effect"

export const ContactListsHttpLive = HttpApiBuilder.group(
  CampaignApi,
  "contactLists",
  (handlers) =>
    Effect.gen(function*() {
      const lists = yield* ContactLists
      const tenant = Effect.map(CurrentTenant, (t) => t.tenantId)
      return handlers
        .handle("createContactList", ({ payload }) =>
          Effect.flatMap(tenant, (tenantId) => lists.create(tenantId, payload)))
        .handle("listContactLists", ({ urlParams }) =>
          Effect.gen(function*() {
            const { items, total } = yield* lists.list(yield* tenant, urlParams)
            return makePage(items, total, urlParams)
          }))
        .handle("getContactList", ({ path }) =>
          Effect.flatMap(tenant, (tenantId) => lists.get(tenantId, path.id)))
        .handle("updateContactList", ({ path, payload }) =>
          Effect.flatMap(tenant, (tenantId) =>
            lists.update(tenantId, path.id, payload)))
        .handle("deleteContactList", ({ path }) =>
          Effect.flatMap(tenant, (tenantId) => lists.remove(tenantId, path.id)))
        .handle("uploadContacts", ({ path, payload }) =>
          Effect.flatMap(tenant, (tenantId) =>
            lists.importCsv(tenantId, path.id, payload.file)))
        .handle("listContacts", ({ path, urlParams }) =>
          Effect.flatMap(tenant, (tenantId) =>
            lists.contacts(tenantId, path.listId, urlParams)))
        .handle("createContact", ({ path, payload }) =>
          Effect.flatMap(tenant, (tenantId) =>
            lists.addContact(tenantId, path.listId, payload)))
        .handle("createContactsBulk", ({ path, payload }) =>
          Effect.flatMap(tenant, (tenantId) =>
            lists.importContacts(tenantId, path.listId, payload.contacts)))
        .handle("getContact", ({ path }) =>
          Effect.flatMap(tenant, (tenantId) =>
            lists.getContact(tenantId, path.listId, path.contactId)))
        .handle("updateContact", ({ path, payload }) =>
          Effect.flatMap(tenant, (tenantId) =>
            lists.updateContact(tenantId, path.listId, path.contactId, payload)))
        .handle("deleteContact", ({ path }) =>
          Effect.flatMap(tenant, (tenantId) =>
            lists.removeContact(tenantId, path.listId, path.contactId)))
    })
)
