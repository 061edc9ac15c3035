// The worker thread of an apply's preparation (`EventPreparer`): it serves `prepareEvents` alone.
import { prepareEvents } from "./event-preparation";

export default prepareEvents;
