// The release of Count Centre: what `count-centre --version`, status_show and the mirror's User-Agent say. A test keeps
// it equal to package.json's version.

export const COUNT_CENTRE_VERSION = '0.1.0';
