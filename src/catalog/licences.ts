// The licences a publisher can name by id, as CKAN's default licence list and data portals' SPDX-style ids name them,
// with the title and address package_show reports. Ids match without regard to case.

export interface Licence {
  id: string;
  title: string;
  url: string;
  /** Whether CKAN counts it as open (package_show's `isopen`). */
  open: boolean;
}

const LICENCES: readonly Licence[] = [
  {
    id: 'cc-by',
    title: 'Creative Commons Attribution',
    url: 'http://www.opendefinition.org/licenses/cc-by',
    open: true,
  },
  {
    id: 'cc-by-sa',
    title: 'Creative Commons Attribution Share-Alike',
    url: 'http://www.opendefinition.org/licenses/cc-by-sa',
    open: true,
  },
  {
    id: 'cc-zero',
    title: 'Creative Commons CCZero',
    url: 'http://www.opendefinition.org/licenses/cc-zero',
    open: true,
  },
  {
    id: 'cc-nc',
    title: 'Creative Commons Non-Commercial (Any)',
    url: 'http://creativecommons.org/licenses/by-nc/2.0/',
    open: false,
  },
  {
    id: 'gfdl',
    title: 'GNU Free Documentation License',
    url: 'http://www.opendefinition.org/licenses/gfdl',
    open: true,
  },
  {
    id: 'odc-by',
    title: 'Open Data Commons Attribution License',
    url: 'http://www.opendefinition.org/licenses/odc-by',
    open: true,
  },
  {
    id: 'odc-odbl',
    title: 'Open Data Commons Open Database License (ODbL)',
    url: 'http://www.opendefinition.org/licenses/odc-odbl',
    open: true,
  },
  {
    id: 'odc-pddl',
    title: 'Open Data Commons Public Domain Dedication and License (PDDL)',
    url: 'http://www.opendefinition.org/licenses/odc-pddl',
    open: true,
  },
  { id: 'other-at', title: 'Other (Attribution)', url: '', open: true },
  { id: 'other-closed', title: 'Other (Not Open)', url: '', open: false },
  { id: 'other-nc', title: 'Other (Non-Commercial)', url: '', open: false },
  { id: 'other-open', title: 'Other (Open)', url: '', open: true },
  { id: 'other-pd', title: 'Other (Public Domain)', url: '', open: true },
  {
    id: 'uk-ogl',
    title: 'UK Open Government Licence (OGL)',
    url: 'http://reference.data.gov.uk/id/open-government-licence',
    open: true,
  },
  {
    id: 'CC-BY-4.0',
    title: 'Creative Commons Attribution 4.0',
    url: 'https://creativecommons.org/licenses/by/4.0/',
    open: true,
  },
  {
    id: 'CC-BY-SA-4.0',
    title: 'Creative Commons Attribution-ShareAlike 4.0',
    url: 'https://creativecommons.org/licenses/by-sa/4.0/',
    open: true,
  },
  {
    id: 'CC0-1.0',
    title: 'Creative Commons Zero 1.0 (public domain dedication)',
    url: 'https://creativecommons.org/publicdomain/zero/1.0/',
    open: true,
  },
  {
    id: 'ODbL-1.0',
    title: 'Open Data Commons Open Database License 1.0',
    url: 'https://opendatacommons.org/licenses/odbl/1-0/',
    open: true,
  },
  {
    id: 'ODC-By-1.0',
    title: 'Open Data Commons Attribution License 1.0',
    url: 'https://opendatacommons.org/licenses/by/1-0/',
    open: true,
  },
  {
    id: 'PDDL-1.0',
    title: 'Open Data Commons Public Domain Dedication and License 1.0',
    url: 'https://opendatacommons.org/licenses/pddl/1-0/',
    open: true,
  },
  {
    id: 'OGL-UK-3.0',
    title: 'Open Government Licence v3.0',
    url: 'https://www.nationalarchives.gov.uk/doc/open-government-licence/version/3/',
    open: true,
  },
  { id: 'notspecified', title: 'License not specified', url: '', open: false },
];

/** The licence with this id (any case), or undefined. */
export function licenceById(id: string): Licence | undefined {
  const wanted = id.trim().toLowerCase();
  return LICENCES.find((l) => l.id.toLowerCase() === wanted);
}

/** Whether a licence id is one CKAN counts as open; an id not in the list is not. */
export function isOpenLicence(id: string): boolean {
  return licenceById(id)?.open ?? false;
}
