import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Multipart from "@effect/platform/Multipart"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { reportAllIssues } from "./ApiError.js"
import { TenantAuthentication } from "./Auth.js"
import {
  BulkContactsRequest,
  Contact,
  ContactExists,
  ContactInput,
  ContactList,
  ContactListInUse,
  ContactListNameTaken,
  ContactListNotFound,
  ContactNotFound,
  ContactsPage,
  ContactsQuery,
  CreateContactListRequest,
  ImportResult,
  InvalidContact,
  InvalidCsv,
  MAX_CONTACTS_PER_IMPORT,
  MissingPhoneColumn,
  NAME_HEADERS,
  PHONE_HEADERS,
  TooManyRows,
  UnsupportedFileType,
  UpdateContactListRequest,
  UpdateContactRequest
} from "./Contacts.js"
import { HealthGroup } from "./Health.js"
import { API_PREFIX, makeApi } from "./HttpApis.js"
import { ContactId, ContactListId } from "./Ids.js"
import { Page, PageQuery } from "./Pagination.js"

/** The largest CSV file accepted by the upload (500 rows of generous width). */
export const MAX_CSV_BYTES = 2 * 1024 * 1024

const listIdParam = HttpApiSchema.param("id", ContactListId)
const listIdParamForContacts = HttpApiSchema.param("listId", ContactListId)
const contactIdParam = HttpApiSchema.param("contactId", ContactId)

export const CsvUpload = HttpApiSchema.Multipart(
  Schema.Struct({ file: Multipart.SingleFileSchema }),
  { maxFileSize: Option.some(MAX_CSV_BYTES), maxParts: Option.some(5) }
)

export class ContactListsGroup extends HttpApiGroup.make("contactLists")
  .add(
    HttpApiEndpoint.post("createContactList", "/contact-lists")
      .setPayload(reportAllIssues(CreateContactListRequest))
      .addSuccess(ContactList, { status: 201 })
      .addError(ContactListNameTaken.http)
      .annotate(
        OpenApi.Description,
        "Creates an empty list. metadata.defaultCountry (ISO 3166-1 alpha-2) lets contacts be given without a country code."
      )
  )
  .add(
    HttpApiEndpoint.get("listContactLists", "/contact-lists")
      .setUrlParams(reportAllIssues(PageQuery()))
      .addSuccess(Page(ContactList).annotations({ identifier: "ContactListPage" }))
  )
  .add(
    HttpApiEndpoint.get("getContactList")`/contact-lists/${listIdParam}`
      .addSuccess(ContactList)
      .addError(ContactListNotFound.http)
  )
  .add(
    HttpApiEndpoint.patch("updateContactList")`/contact-lists/${listIdParam}`
      .setPayload(reportAllIssues(UpdateContactListRequest))
      .addSuccess(ContactList)
      .addError(ContactListNotFound.http)
      .addError(ContactListNameTaken.http)
  )
  .add(
    HttpApiEndpoint.del("deleteContactList")`/contact-lists/${listIdParam}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(ContactListNotFound.http)
      .addError(ContactListInUse.http)
      .annotate(OpenApi.Description, "Deletes the list and its contacts; refused while a scheduled, running or paused campaign uses it")
  )
  .add(
    HttpApiEndpoint.post("uploadContacts")`/contact-lists/${listIdParam}/upload`
      .setPayload(CsvUpload)
      .addSuccess(ImportResult)
      .addError(ContactListNotFound.http)
      .addError(UnsupportedFileType.http)
      .addError(TooManyRows.http)
      .addError(MissingPhoneColumn.http)
      .addError(InvalidCsv.http)
      .annotate(
        OpenApi.Description,
        `Imports contacts from one multipart part named \`file\` (a .csv of at most ${MAX_CONTACTS_PER_IMPORT} rows and ` +
          `${MAX_CSV_BYTES / 1024 / 1024} MiB) in one transaction. Headers match case-insensitively, spaces and ` +
          `underscores alike: phone (${PHONE_HEADERS.join(", ")}; required), name (${NAME_HEADERS.join(", ")}), email, ` +
          "metadata (a JSON object). Other columns are kept in the contact's metadata. Bad rows are skipped and " +
          "reported in invalidRows by spreadsheet row number (header = row 1); phones already in the list or " +
          "repeated in the file are skipped as duplicate."
      )
  )
  .add(
    HttpApiEndpoint.get("listContacts")`/contact-lists/${listIdParamForContacts}/contacts`
      .setUrlParams(reportAllIssues(ContactsQuery))
      .addSuccess(ContactsPage)
      .addError(ContactListNotFound.http)
      .annotate(
        OpenApi.Description,
        "page (default 1) and limit (default 25, at most 200); without either, the whole list. Oldest first."
      )
  )
  .add(
    HttpApiEndpoint.post("createContact")`/contact-lists/${listIdParamForContacts}/contacts`
      .setPayload(reportAllIssues(ContactInput))
      .addSuccess(Contact, { status: 201 })
      .addError(ContactListNotFound.http)
      .addError(ContactExists.http)
      .addError(InvalidContact.http)
  )
  .add(
    HttpApiEndpoint.post("createContactsBulk")`/contact-lists/${listIdParamForContacts}/contacts/bulk`
      .setPayload(reportAllIssues(BulkContactsRequest))
      .addSuccess(ImportResult)
      .addError(ContactListNotFound.http)
      .annotate(
        OpenApi.Description,
        `Adds up to ${MAX_CONTACTS_PER_IMPORT} contacts in one transaction with the upload's rules; invalidRows.row is the position in contacts, from 1.`
      )
  )
  .add(
    HttpApiEndpoint.get("getContact")`/contact-lists/${listIdParamForContacts}/contacts/${contactIdParam}`
      .addSuccess(Contact)
      .addError(ContactListNotFound.http)
      .addError(ContactNotFound.http)
  )
  .add(
    HttpApiEndpoint.patch("updateContact")`/contact-lists/${listIdParamForContacts}/contacts/${contactIdParam}`
      .setPayload(reportAllIssues(UpdateContactRequest))
      .addSuccess(Contact)
      .addError(ContactListNotFound.http)
      .addError(ContactNotFound.http)
      .addError(ContactExists.http)
      .addError(InvalidContact.http)
  )
  .add(
    HttpApiEndpoint.del("deleteContact")`/contact-lists/${listIdParamForContacts}/contacts/${contactIdParam}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(ContactListNotFound.http)
      .addError(ContactNotFound.http)
  )
  .middleware(TenantAuthentication)
  .prefix(API_PREFIX)
  .annotate(OpenApi.Description, "Contact lists and their contacts")
{}

export class CampaignApi extends makeApi("campaign")
  .add(HealthGroup)
  .add(ContactListsGroup)
  .annotate(OpenApi.Title, "Voice Agent Platform — campaign engine")
  .annotate(OpenApi.Version, "1.0.0")
{}
