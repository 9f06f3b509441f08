// A record page: one record's fields as a description list, with links to the records and election pages it relates
// to, and to itself as JSON.

import type { CatalogResource } from '../../catalog/catalog.js';
import type { FieldMeta } from '../data.js';
import { cellText, isIrishField } from '../format.js';
import { LinkList } from './layout.js';

export interface RelatedLink {
  label: string;
  href: string;
}

export interface RecordPageProps {
  resource: CatalogResource;
  record: Record<string, unknown>;
  fields: FieldMeta[];
  related: RelatedLink[];
  apiUrl: string;
  tableHref: string;
  title: string;
  /**
   * For a candidate: the count they were elected or excluded on, worked out from the count details, and a link to it.
   */
  outcome: { text: string; href: string } | null;
}

export function RecordPage({ resource, record, fields, related, apiUrl, tableHref, title, outcome }: RecordPageProps) {
  return (
    <>
      <h1>{title}</h1>
      <p class="meta">
        Record {String(record._id)} of <a href={tableHref}>{resource.definition.name}</a>
      </p>
      {outcome && (
        <p class="outcome">
          <strong>{outcome.text}</strong>, from the count details: <a href={outcome.href}>the count as it stood then</a>
          .
        </p>
      )}
      <dl class="record">
        {fields
          .filter((f) => f.id !== '_id')
          .map((f) => (
            <div>
              <dt>{f.id}</dt>
              <dd lang={isIrishField(f.id) ? 'ga' : undefined} class={record[f.id] === null ? 'null' : undefined}>
                {cellText(record[f.id], f.type, f.id) || '(empty)'}
              </dd>
              {resource.fieldById.get(f.id)?.info?.notes && (
                <dd class="hint field-note">{resource.fieldById.get(f.id)!.info!.notes}</dd>
              )}
            </div>
          ))}
      </dl>
      {related.length > 0 && (
        <section aria-labelledby="related-title">
          <h2 id="related-title">Related</h2>
          <LinkList links={related} />
        </section>
      )}
      <p>
        <a href={apiUrl} rel="nofollow">
          This record as JSON, from the API
        </a>
      </p>
    </>
  );
}
