/**
 * Full-text helpers over the generated `nodes.tsv` column.
 *
 * `plainto_tsquery` and `websearch_to_tsquery` AND their terms, so a long natural-language
 * question only matches a row holding every word of it. Recall wants OR: any shared lexeme
 * matches and `ts_rank` puts rows sharing more of them first.
 */

/**
 * SQL expression (tsquery) OR-ing the lexemes of the text in `param` (e.g. `'$1'`) under the
 * same configuration as the tsv column. The lexemes are already normalised, so they are cast
 * with `::tsquery` rather than re-parsed (re-stemming a stem can change it), and quoted with
 * tsquery's rules (backslash and quote escaped) so no input can be read as an operator. Text
 * with no lexemes (only stop words, punctuation) gives NULL, which matches nothing.
 *
 * Example: `where tsv @@ ${orTsQuerySql('$1')} order by ts_rank(tsv, ${orTsQuerySql('$1')}) desc`.
 */
export function orTsQuerySql(param: string, config: string = 'english'): string {
  if (!/^[a-z_]+$/.test(config)) throw new Error(`invalid text search configuration ${JSON.stringify(config)}`);
  return (
    `(select string_agg('''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''', ' | ')` +
    ` from unnest(tsvector_to_array(to_tsvector('${config}', ${param}))) as lexeme)::tsquery`
  );
}
