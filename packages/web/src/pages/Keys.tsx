import { ACCOUNT_LIMITS } from "@voiceagent/domain/Limits"
import { useState } from "preact/hooks"
import { api, call, type Schema, when } from "../api"
import { Card, CopyButton, Empty, ErrorBox, Field, Form, formValues, Page, Pager, useAction, useLoad } from "../ui"

const PAGE_SIZE = 20

/** API keys: created (the key and its signing secret shown once), listed, revoked. */
export const KeysPage = () => {
  const [page, setPage] = useState(1)
  const [created, setCreated] = useState<Schema<"CreatedApiKey"> | null>(null)
  const [confirming, setConfirming] = useState<string | null>(null)
  const keys = useLoad(
    () => call(api().GET("/api/v1/api-keys", { params: { query: { page, pageSize: PAGE_SIZE } } })),
    [page]
  )
  const create = useAction(async (form: HTMLFormElement) => {
    const values = formValues(form)
    const expires = values.text("expiresAt")
    const webhookUrl = values.text("webhookUrl")
    if (expires !== "" && Date.parse(expires) <= Date.now()) {
      throw new Error("The expiry must be in the future.")
    }
    const key = await call(
      api().POST("/api/v1/api-keys", {
        body: {
          name: values.text("name"),
          ...(expires === "" ? {} : { expiresAt: new Date(expires).toISOString() }),
          ...(webhookUrl === "" ? {} : { webhookUrl })
        }
      })
    )
    form.reset()
    setCreated(key)
    keys.reload()
  })
  const revoke = useAction(async (id: string) => {
    await call(api().DELETE("/api/v1/api-keys/{id}", { params: { path: { id } } }))
    setConfirming(null)
    keys.reload()
  })
  return (
    <Page title="API keys">
      <Card title="Create a key">
        <Form
          class="grid"
          onSend={create.run}
        >
          <Field label="Name" name="name" required maxLength={ACCOUNT_LIMITS.apiKeyName} />
          <Field label="Expires (optional)" name="expiresAt" type="datetime-local" />
          <Field label="Webhook URL (optional)" name="webhookUrl" type="url" placeholder="https://example.com/hooks" />
          <div class="actions">
            <button type="submit" disabled={create.busy}>Create key</button>
          </div>
        </Form>
        <ErrorBox error={create.error} />
      </Card>
      {created !== null && (
        <div class="card secret" role="status" aria-live="polite" data-testid="created-key">
          <h2>Key “{created.name}” created</h2>
          <p>
            <strong>Shown once:</strong> copy the key and its signing secret now; the platform keeps only their hashes.
          </p>
          <dl>
            <dt>API key</dt>
            <dd>
              <code data-copy="key" data-testid="new-key">{created.key}</code>{" "}
              <CopyButton text={created.key} label="key" />
            </dd>
            <dt>Webhook signing secret</dt>
            <dd>
              <code data-copy="secret">{created.signingSecret}</code>{" "}
              <CopyButton text={created.signingSecret} label="secret" />
            </dd>
          </dl>
          <button type="button" class="secondary" onClick={() => setCreated(null)}>I have copied them</button>
        </div>
      )}
      <Card title="Your keys">
        <ErrorBox error={keys.error ?? revoke.error} />
        {keys.data !== undefined && keys.data.items.length === 0 && <Empty>No keys yet.</Empty>}
        {keys.data !== undefined && keys.data.items.length > 0 && (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Prefix</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Expires</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.data.items.map((key) => (
                  <tr key={key.id}>
                    <td>{key.name}</td>
                    <td>
                      <code>{key.prefix}…</code>
                    </td>
                    <td>{when(key.createdAt)}</td>
                    <td>{when(key.lastUsedAt)}</td>
                    <td>{key.expiresAt === null ? "never" : when(key.expiresAt)}</td>
                    <td>
                      {confirming === key.id
                        ? (
                          <span class="confirm">
                            <button
                              type="button"
                              class="danger"
                              disabled={revoke.busy}
                              onClick={() => void revoke.run(key.id)}
                            >
                              Revoke {key.name}
                            </button>
                            <button type="button" class="secondary" onClick={() => setConfirming(null)}>Cancel</button>
                          </span>
                        )
                        : (
                          <button type="button" class="secondary" onClick={() => setConfirming(key.id)}>Revoke…</button>
                        )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {keys.data !== undefined && (
          <Pager label="Keys" page={page} totalPages={keys.data.totalPages} onPage={setPage} />
        )}
      </Card>
    </Page>
  )
}
