-- A test desk: a cash desk whose orders are sandbox orders whatever its merchant's status, so an
-- approved merchant keeps testing with keys of their own, against the sandbox provider, moving
-- sandbox money only. Fixed when the desk is created (like its method): a desk never turns from test
-- to live or back, so its key always means one money. Existing desks are live desks, as they were:
-- their orders follow the merchant's status.
ALTER TABLE desks ADD COLUMN sandbox boolean NOT NULL DEFAULT false;
