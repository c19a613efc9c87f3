import { CONTACT_LIMITS } from "@voiceagent/domain/Limits"
import { useState } from "preact/hooks"
import { api, call, multipart, type Schema, when } from "../api"
import { Link, navigate } from "../router"
import { Card, Empty, ErrorBox, Field, Form, formValues, Page, Pager, useAction, useLoad } from "../ui"

const PAGE_SIZE = 20
const E164 = "\\+[1-9][0-9]{1,14}"
/** The gateway's limit on a CSV upload (2 MiB, Gateway/Protection.ts): a larger file is refused with 413. */
const MAX_CSV_BYTES = 2 * 1024 * 1024

/** Contact lists: created, listed with their sizes. */
export const ContactListsPage = () => {
  const [page, setPage] = useState(1)
  const lists = useLoad(
    () => call(api().GET("/api/v1/contact-lists", { params: { query: { page, pageSize: PAGE_SIZE } } })),
    [page]
  )
  const create = useAction(async (form: HTMLFormElement) => {
    await call(api().POST("/api/v1/contact-lists", { body: { name: formValues(form).text("name") } }))
    form.reset()
    lists.reload()
  })
  return (
    <Page title="Contact lists">
      <Card title="Create a list">
        <Form
          class="grid"
          onSend={create.run}
        >
          <Field label="Name" name="name" required maxLength={CONTACT_LIMITS.name} />
          <div class="actions">
            <button type="submit" disabled={create.busy}>Create list</button>
          </div>
        </Form>
        <ErrorBox error={create.error} />
      </Card>
      <Card title="Your lists">
        <ErrorBox error={lists.error} />
        {lists.data !== undefined && lists.data.items.length === 0 && <Empty>No lists yet.</Empty>}
        {lists.data !== undefined && lists.data.items.length > 0 && (
          <ul class="rows">
            {lists.data.items.map((list) => (
              <li key={list.id}>
                <Link href={`/contacts/${list.id}`}>{list.name}</Link> <small>{list.contactCount} contacts</small>
              </li>
            ))}
          </ul>
        )}
        {lists.data !== undefined && (
          <Pager label="Lists" page={page} totalPages={lists.data.totalPages} onPage={setPage} />
        )}
      </Card>
      <DoNotCall />
    </Page>
  )
}

/** The tenant's do-not-call list: numbers every campaign skips (its attempts say DO_NOT_CALL). */
const DoNotCall = () => {
  const [page, setPage] = useState(1)
  const entries = useLoad(() => call(api().GET("/api/v1/dnc", { params: { query: { page, pageSize: PAGE_SIZE } } })), [
    page
  ])
  const [confirming, setConfirming] = useState<string | null>(null)
  const add = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form)
    const reason = v.text("reason")
    await call(
      api().POST("/api/v1/dnc", { body: { phoneNumber: v.text("phoneNumber"), ...(reason === "" ? {} : { reason }) } })
    )
    form.reset()
    entries.reload()
  })
  const remove = useAction(async (phoneNumber: string) => {
    await call(api().DELETE("/api/v1/dnc/{phoneNumber}", { params: { path: { phoneNumber } } }))
    setConfirming(null)
    entries.reload()
  })
  return (
    <Card title="Do-not-call list">
      <p class="hint">Campaigns never dial these numbers, in any list.</p>
      <Form class="grid" aria-label="Add to the do-not-call list" onSend={add.run}>
        <Field
          label="Phone (E.164)"
          name="phoneNumber"
          required
          pattern={E164}
          inputMode="tel"
          placeholder="+14155550100"
        />
        <Field label="Reason (optional)" name="reason" maxLength={CONTACT_LIMITS.dncReason} />
        <div class="actions">
          <button type="submit" disabled={add.busy}>Add to do-not-call</button>
        </div>
      </Form>
      <ErrorBox error={add.error ?? remove.error ?? entries.error} />
      {entries.data !== undefined && entries.data.items.length === 0 && (
        <Empty>No numbers on the do-not-call list.</Empty>
      )}
      {entries.data !== undefined && entries.data.items.length > 0 && (
        <ul class="rows" data-testid="dnc">
          {entries.data.items.map((entry) => (
            <li key={entry.phoneNumber}>
              <code>{entry.phoneNumber}</code> {entry.reason !== null && <small>{entry.reason}</small>}{" "}
              <small>since {when(entry.createdAt)}</small>
              {confirming === entry.phoneNumber
                ? (
                  <span class="confirm">
                    <button
                      type="button"
                      class="danger"
                      disabled={remove.busy}
                      onClick={() => void remove.run(entry.phoneNumber)}
                    >
                      Allow {entry.phoneNumber}
                    </button>
                    <button type="button" class="secondary" onClick={() => setConfirming(null)}>Cancel</button>
                  </span>
                )
                : (
                  <button
                    type="button"
                    class="secondary"
                    aria-label={`Remove ${entry.phoneNumber} from do-not-call…`}
                    onClick={() => setConfirming(entry.phoneNumber)}
                  >
                    Remove…
                  </button>
                )}
            </li>
          ))}
        </ul>
      )}
      {entries.data !== undefined && (
        <Pager label="Do-not-call" page={page} totalPages={entries.data.totalPages} onPage={setPage} />
      )}
    </Card>
  )
}

/** One list: CSV upload (imported, skipped, each invalid row and its reason), one contact added, contacts paginated. */
export const ContactListPage = ({ id }: { readonly id: string }) => {
  const [page, setPage] = useState(1)
  const [result, setResult] = useState<Schema<"ImportResult"> | null>(null)
  const list = useLoad(() => call(api().GET("/api/v1/contact-lists/{id}", { params: { path: { id } } })), [id])
  const contacts = useLoad(
    () =>
      call(
        api().GET("/api/v1/contact-lists/{listId}/contacts", {
          params: { path: { listId: id }, query: { page, limit: PAGE_SIZE } }
        })
      ),
    [id, page]
  )
  const refresh = () => {
    list.reload()
    contacts.reload()
  }
  const upload = useAction(async (form: HTMLFormElement) => {
    const file = formValues(form).file("file")
    if (file === null || file.size === 0) throw new Error("Choose a CSV file with a phone column.")
    if (file.size > MAX_CSV_BYTES) throw new Error(`The file is over ${MAX_CSV_BYTES / 1024 / 1024} MB.`)
    setResult(null)
    const imported = await call(
      api().POST("/api/v1/contact-lists/{id}/upload", {
        params: { path: { id } },
        body: { file: [file] },
        bodySerializer: multipart
      })
    )
    setResult(imported)
    form.reset()
    refresh()
  })
  const add = useAction(async (form: HTMLFormElement) => {
    const values = formValues(form)
    const name = values.text("name")
    const email = values.text("email")
    await call(
      api().POST("/api/v1/contact-lists/{listId}/contacts", {
        params: { path: { listId: id } },
        body: {
          phoneNumber: values.text("phoneNumber"),
          ...(name === "" ? {} : { name }),
          ...(email === "" ? {} : { email })
        }
      })
    )
    form.reset()
    refresh()
  })
  const [editing, setEditing] = useState<string | null>(null)
  const [confirming, setConfirming] = useState<string | null>(null)
  const edit = useAction(async (form: HTMLFormElement, contactId: string) => {
    const values = formValues(form)
    await call(
      api().PATCH("/api/v1/contact-lists/{listId}/contacts/{contactId}", {
        params: { path: { listId: id, contactId } },
        body: {
          phoneNumber: values.text("phoneNumber"),
          name: values.text("name") || null,
          email: values.text("email") || null
        }
      })
    )
    setEditing(null)
    refresh()
  })
  const remove = useAction(async (contactId: string) => {
    await call(
      api().DELETE("/api/v1/contact-lists/{listId}/contacts/{contactId}", {
        params: { path: { listId: id, contactId } }
      })
    )
    setConfirming(null)
    refresh()
  })
  const [listSaved, setListSaved] = useState(false)
  const rename = useAction(async (form: HTMLFormElement) => {
    await call(
      api().PATCH("/api/v1/contact-lists/{id}", {
        params: { path: { id } },
        body: { name: formValues(form).text("listName") }
      })
    )
    setListSaved(true)
    list.reload()
  })
  const [confirmDelete, setConfirmDelete] = useState(false)
  const removeList = useAction(async () => {
    await call(api().DELETE("/api/v1/contact-lists/{id}", { params: { path: { id } } }))
    navigate("/contacts")
  })
  return (
    <Page title={list.data?.name ?? "Contact list"}>
      <ErrorBox error={list.error} />
      {list.data !== undefined && (
        <Card title="List">
          <Form key={list.data.id} class="grid" onInput={() => setListSaved(false)} onSend={rename.run}>
            <Field
              label="List name"
              name="listName"
              required
              maxLength={CONTACT_LIMITS.name}
              defaultValue={list.data.name}
            />
            <div class="actions">
              <button type="submit" disabled={rename.busy}>Rename</button>
              {listSaved && <span role="status">List renamed.</span>}
              {confirmDelete
                ? (
                  <span class="confirm">
                    <button
                      type="button"
                      class="danger"
                      disabled={removeList.busy}
                      onClick={() => void removeList.run()}
                    >
                      Delete {list.data.name} and its contacts
                    </button>
                    <button type="button" class="secondary" onClick={() => setConfirmDelete(false)}>Cancel</button>
                  </span>
                )
                : <button type="button" class="secondary" onClick={() => setConfirmDelete(true)}>Delete list…</button>}
            </div>
          </Form>
          <ErrorBox error={rename.error ?? removeList.error} />
        </Card>
      )}
      <Card title="Upload a CSV">
        <p class="hint">
          A header row with a <code>phone</code> column (also <code>name</code>,{" "}
          <code>email</code>; other columns become metadata).
        </p>
        <Form
          class="grid"
          onSend={upload.run}
        >
          <label class="field">
            <span>CSV file</span>
            <input type="file" name="file" accept=".csv,text/csv" required />
          </label>
          <div class="actions">
            <button type="submit" disabled={upload.busy}>{upload.busy ? "Uploading…" : "Upload"}</button>
          </div>
        </Form>
        <ErrorBox error={upload.error} />
        {result !== null && (
          <div class="import" role="status" data-testid="import-result">
            <p>
              <strong>{result.imported}</strong> imported, <strong>{result.skipped}</strong> skipped,{" "}
              <strong>{result.invalidRows.length}</strong> invalid.
            </p>
            {result.invalidRows.length > 0 && (
              <div class="table-wrap">
                <table>
                  <caption>Rows not imported</caption>
                  <thead>
                    <tr>
                      <th scope="col">Row</th>
                      <th scope="col">Phone</th>
                      <th scope="col">Reason</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.invalidRows.map((row) => (
                      <tr key={row.row}>
                        <td>{row.row}</td>
                        <td>
                          <code>{row.phone}</code>
                        </td>
                        <td>{row.reason}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </div>
        )}
      </Card>
      <Card title="Add a contact">
        <Form
          class="grid"
          onSend={add.run}
        >
          <Field
            label="Phone (E.164)"
            name="phoneNumber"
            required
            pattern={E164}
            inputMode="tel"
            placeholder="+14155550100"
          />
          <Field label="Name" name="name" maxLength={CONTACT_LIMITS.name} />
          <Field label="Email" name="email" type="email" />
          <div class="actions">
            <button type="submit" disabled={add.busy}>Add contact</button>
          </div>
        </Form>
        <ErrorBox error={add.error} />
      </Card>
      <Card title={`Contacts${contacts.data === undefined ? "" : ` (${contacts.data.total})`}`}>
        <ErrorBox error={contacts.error ?? remove.error} />
        {contacts.data !== undefined && contacts.data.data.length === 0 && <Empty>No contacts yet.</Empty>}
        {contacts.data !== undefined && contacts.data.data.length > 0 && (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Phone</th>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Added</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {contacts.data.data.map((c) =>
                  editing === c.id
                    ? (
                      <tr key={c.id}>
                        <td colSpan={5}>
                          <Form
                            class="grid"
                            aria-label={`Edit ${c.phoneNumber}`}
                            onSend={(form) => edit.run(form, c.id)}
                          >
                            <Field
                              label="Phone (E.164)"
                              name="phoneNumber"
                              required
                              pattern={E164}
                              inputMode="tel"
                              defaultValue={c.phoneNumber}
                            />
                            <Field
                              label="Name"
                              name="name"
                              maxLength={CONTACT_LIMITS.name}
                              defaultValue={c.name ?? ""}
                            />
                            <Field label="Email" name="email" type="email" defaultValue={c.email ?? ""} />
                            <ErrorBox error={edit.error} />
                            <div class="actions">
                              <button type="submit" disabled={edit.busy}>Save contact</button>
                              <button type="button" class="secondary" onClick={() => setEditing(null)}>Cancel</button>
                            </div>
                          </Form>
                        </td>
                      </tr>
                    )
                    : (
                      <tr key={c.id}>
                        <td>
                          <code>{c.phoneNumber}</code>
                        </td>
                        <td>{c.name ?? "—"}</td>
                        <td>{c.email ?? "—"}</td>
                        <td>{when(c.createdAt)}</td>
                        <td>
                          {confirming === c.id
                            ? (
                              <span class="confirm">
                                <button
                                  type="button"
                                  class="danger"
                                  disabled={remove.busy}
                                  onClick={() => void remove.run(c.id)}
                                >
                                  Delete {c.phoneNumber}
                                </button>
                                <button type="button" class="secondary" onClick={() => setConfirming(null)}>
                                  Cancel
                                </button>
                              </span>
                            )
                            : (
                              <span class="confirm">
                                <button
                                  type="button"
                                  class="secondary"
                                  aria-label={`Edit ${c.phoneNumber}`}
                                  onClick={() => {
                                    edit.clear()
                                    setEditing(c.id)
                                  }}
                                >
                                  Edit
                                </button>
                                <button
                                  type="button"
                                  class="secondary"
                                  aria-label={`Delete ${c.phoneNumber}…`}
                                  onClick={() => setConfirming(c.id)}
                                >
                                  Delete…
                                </button>
                              </span>
                            )}
                        </td>
                      </tr>
                    )
                )}
              </tbody>
            </table>
          </div>
        )}
        {contacts.data !== undefined && (
          <Pager
            label="Contacts"
            page={page}
            totalPages={Math.ceil(contacts.data.total / contacts.data.limit)}
            onPage={setPage}
          />
        )}
      </Card>
    </Page>
  )
}
