export { makeMediaTree } from '../server/test/helpers/media.ts';
