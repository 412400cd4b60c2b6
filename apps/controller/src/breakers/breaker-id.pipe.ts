import { NotFoundException, ParseUUIDPipe } from '@nestjs/common';

/** A path parameter naming a breaker: no breaker has an id that is not a UUID, so anything else is a 404. */
export const breakerIdParam = new ParseUUIDPipe({
  exceptionFactory: () => new NotFoundException('breaker not found'),
});
