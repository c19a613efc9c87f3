import { useState } from "preact/hooks"
import { api, call, idempotencyKey, money, when } from "../api"
import { Card, Empty, ErrorBox, Field, Form, formValues, Page, Pager, useAction, useLoad } from "../ui"

const PAGE_SIZE = 20

/** The wallet: balance, reserved and available; top-ups (idempotent per form); the ledger, paginated. */
export const WalletPage = () => {
  const [page, setPage] = useState(1)
  // one key per top-up the user means: a double submit or a retry answers the same top-up
  const [topUpKey, setTopUpKey] = useState(idempotencyKey)
  const wallet = useLoad(() => call(api().GET("/api/v1/wallet")), [])
  const ledger = useLoad(
    () => call(api().GET("/api/v1/billing/transactions", { params: { query: { page, pageSize: PAGE_SIZE } } })),
    [page]
  )
  const currency = wallet.data?.currency ?? "USD"
  const digits =
    new Intl.NumberFormat(undefined, { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2
  const topUp = useAction(async (form: HTMLFormElement) => {
    const amount = Math.round(Number(formValues(form).text("amount")) * 10 ** digits)
    if (!Number.isSafeInteger(amount) || amount < 1) throw new Error("The amount must be positive.")
    await call(api().POST("/api/v1/wallet/top-ups", { body: { amount, idempotencyKey: topUpKey } }))
    form.reset()
    setTopUpKey(idempotencyKey())
    wallet.reload()
    if (page === 1) ledger.reload()
    else setPage(1)
  })
  return (
    <Page title="Wallet">
      <ErrorBox error={wallet.error} />
      {wallet.data !== undefined && (
        <div class="stats" aria-label="Wallet">
          <div class="stat">
            <span>Balance</span>
            <strong data-testid="balance">{money(wallet.data.balance, currency)}</strong>
          </div>
          <div class="stat">
            <span>Reserved for calls</span>
            <strong>{money(wallet.data.reserved, currency)}</strong>
          </div>
          <div class="stat">
            <span>Available</span>
            <strong>{money(wallet.data.available, currency)}</strong>
          </div>
        </div>
      )}
      <Card title="Top up">
        <Form
          class="grid"
          onSend={topUp.run}
        >
          <Field
            label={`Amount (${currency})`}
            name="amount"
            type="number"
            min={1 / 10 ** digits}
            step={1 / 10 ** digits}
            required
            inputMode="decimal"
          />
          <div class="actions">
            <button type="submit" disabled={topUp.busy}>Add funds</button>
          </div>
        </Form>
        <ErrorBox error={topUp.error} />
      </Card>
      <Card title="Ledger">
        <ErrorBox error={ledger.error} />
        {ledger.data !== undefined && ledger.data.items.length === 0 && <Empty>No transactions yet.</Empty>}
        {ledger.data !== undefined && ledger.data.items.length > 0 && (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Kind</th>
                  <th scope="col" class="num">Amount</th>
                  <th scope="col" class="num">Balance after</th>
                  <th scope="col">Reference</th>
                </tr>
              </thead>
              <tbody>
                {ledger.data.items.map((t) => (
                  <tr key={t.id}>
                    <td>{when(t.createdAt)}</td>
                    <td>{t.kind.replace("_", " ")}</td>
                    <td class="num">{money(t.amount, currency)}</td>
                    <td class="num">{money(t.balanceAfter, currency)}</td>
                    <td>
                      <code>{t.reference ?? t.idempotencyKey}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {ledger.data !== undefined && (
          <Pager label="Ledger" page={page} totalPages={ledger.data.totalPages} onPage={setPage} />
        )}
      </Card>
    </Page>
  )
}
