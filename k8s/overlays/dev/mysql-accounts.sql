-- Development only: the services' MySQL accounts with PUBLIC dev passwords (those of ums-secrets in
-- kustomization.yaml). The grants are those of libs/contracts/src/mysql/service-grants.ts, as
-- `npm run -s db:grants -- print` prints them (a unit test keeps this file in step). The mysql image
-- runs this once, on an empty data directory; it creates ums_migrator itself (MYSQL_USER).
CREATE USER 'ums_scheduler'@'%' IDENTIFIED BY 'ums-dev-scheduler';
CREATE USER 'ums_expander'@'%' IDENTIFIED BY 'ums-dev-expander';
CREATE USER 'ums_sender'@'%' IDENTIFIED BY 'ums-dev-sender';
CREATE USER 'ums_ingest'@'%' IDENTIFIED BY 'ums-dev-ingest';
CREATE USER 'ums_dispatcher'@'%' IDENTIFIED BY 'ums-dev-dispatcher';
GRANT SELECT, INSERT, UPDATE, DELETE ON `ums`.* TO 'ums_scheduler'@'%';
GRANT SELECT, INSERT, UPDATE ON `ums`.* TO 'ums_expander'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE ON `ums`.* TO 'ums_sender'@'%';
GRANT SELECT ON `ums`.* TO 'ums_ingest'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE ON `ums`.* TO 'ums_dispatcher'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, ALTER, DROP, INDEX, REFERENCES ON `ums`.* TO 'ums_migrator'@'%';
