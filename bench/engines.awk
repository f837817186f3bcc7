# engines.awk summarises a run of BenchmarkEngines (engram on SQLite and
# on PostgreSQL in one run, alternating; see engines_bench_test.go): for
# each op, size and metric, each engine's median over the rounds with its
# spread ((max-min)/median), the ratio of the medians postgres/sqlite and
# the range of the rounds' own ratios.
#
#   go test -c -o /tmp/engines.test .
#   (cd /tmp && ./engines.test -test.run '^$' -test.bench BenchmarkEngines -test.benchtime 1x) | tee /tmp/engines.txt
#   awk -f bench/engines.awk /tmp/engines.txt
/^BenchmarkEngines\// {
	if (split($1, part, "/") == 4) { part[5] = part[4]; part[4] = part[3]; part[3] = "-" } # op=roundtrip has no N
	op = part[2]; n = part[3]; round = part[4]; engine = part[5]
	sub(/^round=/, "", round); sub(/^engine=/, "", engine); sub(/-[0-9]+$/, "", engine)
	key = op " " n
	if (!(key in seen)) { seen[key] = 1; keys[++nkeys] = key }
	if (round > rounds) rounds = round
	for (i = 5; i < NF; i += 2) {
		unit = $(i + 1)
		k = key SUBSEP unit
		if (!(k in useen)) { useen[k] = 1; units[key, ++nunits[key]] = unit }
		val[k, engine, round] = $i
		has[k, engine] = 1
	}
}

# median sorts the m values in v[1..m] and returns their median.
function median(v, m,    i, j, t) {
	for (i = 2; i <= m; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
	return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
}

# stats sets med and spread of metric k on engine e over the rounds.
function stats(k, e,    r, m, v) {
	m = 0
	for (r = 1; r <= rounds; r++) if ((k, e, r) in val) v[++m] = val[k, e, r]
	med = m ? median(v, m) : 0
	spread = med ? (v[m] - v[1]) / med : 0
	count = m
}

END {
	printf "%-24s %-9s %-20s %12s %7s %12s %7s %7s %15s\n", "op", "N", "metric", "sqlite", "±", "postgres", "±", "pg/sq", "rounds' ratios"
	for (x = 1; x <= nkeys; x++) {
		key = keys[x]
		split(key, kk, " ")
		for (u = 1; u <= nunits[key]; u++) {
			unit = units[key, u]
			k = key SUBSEP unit
			if (unit == "ns/op") continue
			stats(k, "sqlite"); sq = med; sqs = spread; sqn = count
			stats(k, "postgres"); pg = med; pgs = spread
			lo = ""; hi = ""
			for (r = 1; r <= rounds; r++)
				if (((k, "sqlite", r) in val) && ((k, "postgres", r) in val) && val[k, "sqlite", r] > 0) {
					q = val[k, "postgres", r] / val[k, "sqlite", r]
					if (lo == "" || q < lo) lo = q
					if (hi == "" || q > hi) hi = q
				}
			printf "%-24s %-9s %-20s %12s %6.0f%% %12s %6.0f%% %7s %15s\n", kk[1], kk[2], unit,
				((k, "sqlite") in has) ? sprintf("%.4g", sq) : "-", 100 * sqs,
				((k, "postgres") in has) ? sprintf("%.4g", pg) : "-", 100 * pgs,
				(((k, "sqlite") in has) && ((k, "postgres") in has) && sq > 0) ? sprintf("%.2f", pg / sq) : "-",
				lo == "" ? "-" : sprintf("%.2f–%.2f", lo, hi)
		}
	}
}
