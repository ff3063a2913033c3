#pragma once

// The statements a reconciliation run reads its day with (DayLoader), kept
// apart from how their rows are put together into the day. Every
// `keel.recon_lines` and `keel.ledger_transactions` here is followed by an
// alias: a verification reads each as a subquery (readAsOf), as it does
// recon_channels in DayOfChannel.
namespace keel::day_queries {

// Times travel as milliseconds since the epoch, floored, so that no text
// format or zone of this machine decides which day a line falls in. The day
// and its lag end are cut in the channel's own zone.
inline constexpr char DayOfChannel[] =
    "SELECT floor(extract(epoch FROM ($2::date)::timestamp AT TIME ZONE time_zone) * "
    "1000)::bigint, "
    "  floor(extract(epoch FROM ($2::date + 1)::timestamp AT TIME ZONE time_zone) * 1000)::bigint, "
    "  floor(extract(epoch FROM (($2::date + 1)::timestamp + settlement_lag) AT TIME ZONE "
    "time_zone) "
    "    * 1000)::bigint, "
    "  fee_rate_ppm, time_zone "
    "FROM keel.recon_channels WHERE channel = $1";

// The day's lines, and the channel's lines of other days for the references
// they name (a duplicate, a late report), in one statement. A channel fee
// line is no record's: it is booked with its statement and not matched.
inline constexpr char LinesOfDay[] =
    "WITH day AS (SELECT * FROM keel.recon_lines dl WHERE channel = $1 AND kind <> 'fee' "
    "  AND occurred_at >= to_timestamp($2 / 1000.0) AND occurred_at < to_timestamp($3 / 1000.0)) "
    "SELECT kind, reference, channel_reference, amount, currency, fee, "
    "       floor(extract(epoch FROM occurred_at) * 1000)::bigint, reverses FROM day "
    "UNION ALL "
    "SELECT o.kind, o.reference, o.channel_reference, o.amount, o.currency, o.fee, "
    "       floor(extract(epoch FROM o.occurred_at) * 1000)::bigint, o.reverses "
    "FROM keel.recon_lines o WHERE o.channel = $1 AND o.kind <> 'fee' "
    "  AND (o.occurred_at < to_timestamp($2 / 1000.0) OR o.occurred_at >= to_timestamp($3 / "
    "1000.0)) "
    "  AND o.reference IN (SELECT reference FROM day)";

// Every line of these records: under keel's reference, or under the
// channel's own id for them where keel keeps it, less the lines LinesOfDay
// read already ($3 and $4 its window): those of the day, and those of other
// days under a reference a line of the day has. Sending them again would
// hold a day named by the channel's ids three times over in the client. A
// line found both ways comes twice and is loaded once (appendLinesOf). Left
// out only because LinesOfDay read them in the same snapshot: outside one
// REPEATABLE READ transaction, a line of the day committed in between would
// take its reference's lines of other days with it.
inline constexpr char LinesOfReferences[] =
    "WITH found AS ("
    "  SELECT kind, reference, channel_reference, amount, currency, fee, occurred_at, reverses "
    "  FROM keel.recon_lines rl WHERE channel = $1 AND kind <> 'fee' "
    "    AND reference = ANY($2::text[]) "
    "  UNION ALL "
    "  SELECT l.kind, l.reference, l.channel_reference, l.amount, l.currency, l.fee, "
    "         l.occurred_at, l.reverses "
    "  FROM (SELECT 'payment' AS kind, public_id, channel_reference FROM keel.charges kc "
    "        WHERE channel = $1 AND public_id = ANY($2::text[]) AND channel_reference IS NOT NULL "
    "        UNION ALL "
    "        SELECT 'refund', public_id, channel_reference FROM keel.refunds kr "
    "        WHERE channel = $1 AND public_id = ANY($2::text[]) "
    "          AND channel_reference IS NOT NULL) k "
    "  JOIN keel.recon_lines l ON l.channel = $1 AND l.kind = k.kind "
    "    AND l.channel_reference = k.channel_reference AND l.reference <> k.public_id) "
    "SELECT kind, reference, channel_reference, amount, currency, fee, "
    "       floor(extract(epoch FROM occurred_at) * 1000)::bigint, reverses FROM found f "
    "WHERE (f.occurred_at < to_timestamp($3 / 1000.0) OR f.occurred_at >= to_timestamp($4 / "
    "1000.0)) "
    "  AND NOT EXISTS (SELECT 1 FROM keel.recon_lines d WHERE d.channel = $1 AND d.kind <> 'fee' "
    "    AND d.reference = f.reference AND d.occurred_at >= to_timestamp($3 / 1000.0) "
    "    AND d.occurred_at < to_timestamp($4 / 1000.0))";

// keel's records the channel's own ids name, where exactly one record has
// the id: $2 for charges, $3 for refunds.
inline constexpr char RecordsOfChannelReferences[] =
    "SELECT 'payment', c.channel_reference, min(c.public_id) FROM keel.charges c "
    "WHERE c.channel = $1 AND c.channel_reference = ANY($2::text[]) "
    "GROUP BY c.channel_reference HAVING count(*) = 1 "
    "UNION ALL "
    "SELECT 'refund', r.channel_reference, min(r.public_id) FROM keel.refunds r "
    "WHERE r.channel = $1 AND r.channel_reference = ANY($3::text[]) "
    "GROUP BY r.channel_reference HAVING count(*) = 1";

// The clearing accounts, one per currency, by id: the day's records are
// found by the entries on them ($4 of DayRecords). A list of ids lets the
// planner count a day's entries from the column's statistics; a join on the
// account's code hid them, and a day of a million charges was then read by a
// million index probes.
inline constexpr char ClearingAccounts[] =
    "SELECT coalesce(array_agg(id ORDER BY id), '{}')::text FROM keel.ledger_accounts "
    "WHERE code = 'channel_clearing:' || currency";

// keel's side is the channel's clearing account: what reached it for a
// charge (captures, money parked from a channel's notice) and what left it
// for a refund, less what a person took back from a charge because the
// channel did (migration 0042: a take-back never makes a day the payment's).
// Money a run parked on the charge counts with its sign: a surplus
// (suspense_in), a shortfall (suspense_owed, migration 0050) and either
// returned by a later run (suspense_return).
// A payment belongs to the day its money first arrived. An
// entry's currency is its account's (the entries' foreign key), so an entry
// on a clearing account of the record's currency is an entry on the record's
// clearing account.
inline constexpr char DayRecords[] =
    "WITH arrived AS (SELECT DISTINCT t.charge_id FROM keel.ledger_transactions t "
    "  WHERE t.kind IN ('capture', 'suspense_in') AND t.charge_id IS NOT NULL "
    "    AND t.created_at >= to_timestamp($2 / 1000.0) AND t.created_at < to_timestamp($3 / "
    "1000.0)) "
    "SELECT 'payment', c.public_id, c.currency, sum(e.amount), "
    "       floor(extract(epoch FROM min(t.created_at)) * 1000)::bigint, c.channel_reference, "
    "       bool_or(t.kind = 'channel_takeback'), bool_or(t.kind = 'suspense_owed') "
    "FROM keel.ledger_transactions t "
    "JOIN keel.ledger_entries e ON e.transaction_id = t.id AND e.account_id = ANY($4::bigint[]) "
    "JOIN keel.charges c ON c.id = t.charge_id AND c.channel = $1 AND c.currency = e.currency "
    "WHERE t.kind IN ('capture', 'suspense_in', 'suspense_owed', 'suspense_return', "
    "  'channel_takeback') "
    "  AND t.charge_id IN (SELECT charge_id FROM arrived) "
    "GROUP BY c.id, c.public_id, c.currency, c.channel_reference "
    "HAVING min(t.created_at) >= to_timestamp($2 / 1000.0) "
    "  AND min(t.created_at) < to_timestamp($3 / 1000.0) "
    "UNION ALL "
    "SELECT 'refund', r.public_id, r.currency, -sum(e.amount), "
    "       floor(extract(epoch FROM min(t.created_at)) * 1000)::bigint, r.channel_reference, "
    "       false, false "
    "FROM keel.ledger_transactions t JOIN keel.refunds r ON r.id = t.refund_id AND r.channel = $1 "
    "JOIN keel.ledger_entries e ON e.transaction_id = t.id AND e.account_id = ANY($4::bigint[]) "
    "  AND e.currency = r.currency "
    "WHERE t.kind = 'refund' "
    "  AND t.created_at >= to_timestamp($2 / 1000.0) AND t.created_at < to_timestamp($3 / 1000.0) "
    "GROUP BY r.public_id, r.currency, r.channel_reference";

// The records the channel's lines name, whatever day keel moved their money,
// and whether it moved any.
inline constexpr char NamedRecords[] =
    "SELECT 'payment', c.public_id, c.currency, coalesce(m.amount, 0), m.first_at IS NOT NULL, "
    "       floor(extract(epoch FROM coalesce(m.first_at, c.created_at)) * 1000)::bigint, "
    "       coalesce(m.taken_back, false), coalesce(m.owed, false) "
    "FROM keel.charges c CROSS JOIN LATERAL (SELECT sum(e.amount) AS amount, "
    "  min(t.created_at) AS first_at, bool_or(t.kind = 'channel_takeback') AS taken_back, "
    "  bool_or(t.kind = 'suspense_owed') AS owed "
    "  FROM keel.ledger_transactions t "
    "  JOIN keel.ledger_entries e ON e.transaction_id = t.id "
    "  JOIN keel.ledger_accounts a ON a.id = e.account_id "
    "    AND a.code = 'channel_clearing:' || c.currency "
    "  WHERE t.charge_id = c.id AND t.kind IN ('capture', 'suspense_in', 'suspense_owed', "
    "    'suspense_return', 'channel_takeback')) m "
    "WHERE c.public_id = ANY($2::text[]) AND c.channel = $1 "
    "UNION ALL "
    "SELECT 'refund', r.public_id, r.currency, coalesce(-m.amount, 0), m.first_at IS NOT NULL, "
    "       floor(extract(epoch FROM coalesce(m.first_at, r.created_at)) * 1000)::bigint, false, "
    "       false "
    "FROM keel.refunds r CROSS JOIN LATERAL (SELECT sum(e.amount) AS amount, "
    "  min(t.created_at) AS first_at FROM keel.ledger_transactions t "
    "  JOIN keel.ledger_entries e ON e.transaction_id = t.id "
    "  JOIN keel.ledger_accounts a ON a.id = e.account_id "
    "    AND a.code = 'channel_clearing:' || r.currency "
    "  WHERE t.refund_id = r.id AND t.kind = 'refund') m "
    "WHERE r.public_id = ANY($3::text[]) AND r.channel = $1";

// Money a person settled for a line judged before keel knew whose it was:
// the line named no record of keel's, its case parked the money in clearing,
// the person handed it out of suspense (written off, say), and no run gives
// it back. Once the channel's id the line carries names one charge, the line
// is that charge's, and so is the money, as money parked on the charge is:
// the charge's run counts it. A second report of the payment then parks
// nothing more, and a payment reported once shows keel holding it twice. An
// id that names more than one charge names none, as the run judges it; a
// break whose lines name different charges is left to the person.
inline constexpr char SettledUnderChannelIds[] =
    "WITH settled AS (SELECT b.id, b.reference, b.currency, sum(e.amount) AS amount "
    "  FROM keel.recon_breaks b "
    "  JOIN keel.suspense_cases k ON k.recon_break_id = b.id AND k.charge_id IS NULL "
    "    AND k.status IN ('resolved', 'written_off') "
    "    AND k.resolution ->> 'kind' IS DISTINCT FROM 'recon_run' "
    "  JOIN keel.ledger_transactions t "
    "    ON t.id = k.ledger_transaction_id OR t.suspense_case_id = k.id "
    "  JOIN keel.ledger_entries e ON e.transaction_id = t.id "
    "  JOIN keel.ledger_accounts a ON a.id = e.account_id "
    "    AND a.code = 'channel_clearing:' || b.currency "
    "  WHERE b.channel = $1 AND b.kind = 'payment' AND b.class = 'missing_at_keel' "
    "  GROUP BY b.id, b.reference, b.currency HAVING sum(e.amount) <> 0), "
    "owner AS (SELECT s.id, min(c.public_id) AS public_id FROM settled s "
    "  JOIN keel.recon_lines l ON l.channel = $1 AND l.kind = 'payment' "
    "    AND l.reference = s.reference "
    "  JOIN keel.charges c ON c.channel = $1 AND c.channel_reference = l.channel_reference "
    "    AND c.currency = s.currency "
    "  WHERE (SELECT count(*) FROM keel.charges o WHERE o.channel = $1 "
    "         AND o.channel_reference = l.channel_reference) = 1 "
    "  GROUP BY s.id HAVING count(DISTINCT c.id) = 1) "
    "SELECT o.public_id, sum(s.amount) FROM settled s JOIN owner o ON o.id = s.id "
    "GROUP BY o.public_id";

} // namespace keel::day_queries
